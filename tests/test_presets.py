"""The presets (ui/presets.py): every measuring command has --quick and
--full, exclusive; each setting is defined once, with a doc; a flag given
wins over the preset; every preset value is one its flag would accept.
Parsing only: nothing here runs the engine (run's counts, the engine's,
are stubbed)."""
import pytest

from conftest import ROOT
from ctxbench import cli
from ctxbench.cli import main
from ctxbench.fleet import job
from ctxbench.core.errors import UserError
from ctxbench.ui import presets

NOT_MEASURING = {"system", "report", "reanalyse", "compare", "store", "history", "fleet", "export"}
MEASURING = sorted(set(cli.COMMANDS) - NOT_MEASURING)
FLAG_KNOBS = [(c, k) for c in MEASURING for k in presets.PRESETS[c].knobs if k.flag]
ENGINE_STUB = {p: {"groups": g, "iterations": i, "min_sample_us": u}
               for p, (g, i, u) in {"quick": (2, 3, 100), "default": (7, 8, 900), "full": (20, 9, 2000)}.items()}


def _parser(command: str):
    sub = next(a for a in cli.build_parser()._actions if a.dest == "command")
    return sub.choices[command]


class _Engine:
    """The command's engine context (core/engine.Engine), for its presets only."""

    def presets(self):
        return ENGINE_STUB


STUB = _Engine()


def _parse(argv):
    args = cli.build_parser().parse_args(argv)
    args.engine = STUB  # as cli does, with the engine's presets stubbed
    return args


def test_every_measuring_command_has_its_presets():
    assert sorted(presets.MEASURING) == MEASURING


@pytest.mark.parametrize("command", MEASURING)
def test_quick_and_full_are_accepted(command):
    assert presets.chosen(_parse([command])) == "default"
    assert presets.chosen(_parse([command, "--quick"])) == "quick"
    assert presets.chosen(_parse([command, "--full"])) == "full"


@pytest.mark.parametrize("command", MEASURING)
def test_quick_and_full_are_exclusive(capsys, command):
    assert main([command, "--quick", "--full"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "--full" in err and "not allowed with" in err, err


@pytest.mark.parametrize("command", MEASURING)
def test_each_preset_is_complete_and_documented(command):
    t = presets.PRESETS[command]
    assert t.quick and t.full and t.knobs
    names = [k.name for k in t.knobs]
    assert len(names) == len(set(names)), names
    for k in t.knobs:
        assert k.doc and "\n" not in k.doc, k
        for p in presets.NAMES:
            assert k.text(p), (k, p)
    for p in presets.NAMES:  # every knob resolves, the engine's too
        s = t.settings(p, STUB)
        assert set(vars(s)) == set(names) and presets.ENGINE not in vars(s).values()


@pytest.mark.parametrize("command", MEASURING)
def test_knobs_are_the_flags_they_say(command):
    """A knob marked flag is the dest of one of the command's options, left
    unset by default (so that the preset fills it); the others are not."""
    opts = _parser(command)._option_string_actions
    args = _parse([command])
    for k in presets.PRESETS[command].knobs:
        assert (k.option in opts) == k.flag, (command, k.name)
        if k.flag:
            assert opts[k.option].dest == k.name and getattr(args, k.name) is None, (command, k.name)


@pytest.mark.parametrize("command,knob", FLAG_KNOBS, ids=[f"{c}-{k.name}" for c, k in FLAG_KNOBS])
def test_every_preset_value_is_one_its_flag_accepts(command, knob):
    """Written as the docs show it and given to the flag, each preset's
    value parses back to itself: no preset sets what the flag refuses."""
    for p in presets.NAMES:
        v = knob.value(p)
        if v is None or v is presets.ENGINE:
            continue
        assert getattr(_parse([command, knob.option, knob.text(p)]), knob.name) == v, (p, knob.text(p))


@pytest.mark.parametrize("command", MEASURING)
def test_a_flag_given_wins_over_the_preset(command):
    t = presets.PRESETS[command]
    quick = vars(t.settings("quick", STUB))
    flags = [k for k in t.knobs if k.flag and quick[k.name] is not None]
    if not flags:
        assert command == "runtimes"  # no flag sets its counts
        return
    given = flags[0]
    text = {"pair": "sort+deflate", "task": "sort", "mechanism": "user/asm", "sizes": "1K", "strides": "0,8",
            "parties": "2,4", "footprint": "4K", "switches": "1,20", "rates": "300", "scale": "0.5"}.get(
        given.name, "11")
    args = _parse([command, "--quick", given.option, text])
    wanted = getattr(args, given.name)
    s = presets.apply(args, command)
    assert s.preset == "quick"
    assert getattr(s, given.name) == getattr(args, given.name) == wanted != quick[given.name]
    for k in t.knobs:  # the others are quick's, on args too where a flag sets them
        if k is not given:
            assert getattr(s, k.name) == quick[k.name], k.name
            assert not k.flag or getattr(args, k.name) == quick[k.name], k.name


def test_run_reads_the_engines_counts():
    s = presets.apply(_parse(["run", "--full", "--iterations", "3"]), "run")
    assert (s.groups, s.iterations, s.min_sample_us, s.preset) == (20, 3, 2000, "full")


def test_fleet_takes_runs_presets():
    assert job.parse(["run", "--quick"]).preset == "quick"
    assert job.parse(["run", "--full", "--groups", "4"]) == job.Job("run", "full", 4, None, None,
                                                                  ("run", "--full", "--groups", "4"))
    assert job.parse(["run"]).preset == "default"
    with pytest.raises(UserError, match="not allowed with"):
        job.parse(["run", "--quick", "--full"])


def test_fleet_runs_peers_as_the_command_on_each_host():
    # peers takes --host (its peers launched by the host's engine), so a fleet runs it a process per host
    got = job.parse(["peers", "--quick", "--peer", "ctx-clock"], check=lambda a: _parse(a))
    assert got.child and got.takes_cpu and got.argv == ("peers", "--quick", "--peer", "ctx-clock")


def test_the_docs_have_the_table_and_every_page_the_flags():
    import sys
    sys.path.insert(0, str(ROOT / "tools"))
    import docs_help
    page = (ROOT / "docs" / "presets.md").read_text()
    assert docs_help.PRESETS.search(page), "docs/presets.md lost its markers"
    for command in MEASURING:
        assert f"### {command}\n" in page, command
        text = (ROOT / "docs" / f"{command}.md").read_text()
        assert "--quick" in text and "--full" in text and "presets.md" in text, command
