"""ctxbench.bench.record: results documents into a ctxbench store (a SQLite
file or a postgresql:// URL), from the control node, with ctxbench's own
store code, as `ctxbench store add` keeps them: each run once however
often it is added, every document read and checked before the store is
touched, all of them in one transaction. Each document is said as added
or already kept. A document that cannot be read is this task's failure
(the host's, not the play's); in check mode nothing is written, nor with
no document."""
from __future__ import annotations

from ansible.plugins.action import ActionBase

from ansible_collections.ctxbench.bench.plugins.plugin_utils import front_end

SPEC = {
    "documents": {"type": "list", "elements": "path", "required": True},
    "store": {"type": "str"},   # default: ctxbench's ($CTXBENCH_STORE, else store.sqlite in its data directory)
    "commit": {"type": "str"},  # the git commit the runs measured, kept with each
}


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _requires_connection = False
    _supports_check_mode = True

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        _, args = self.validate_argument_spec(argument_spec=SPEC)
        result.update(front_end.result(recorded, args, self._task.check_mode))
        return result


def recorded(args: dict, check: bool) -> dict:
    with front_end.one_line("ctxbench"):
        commit = front_end.commit(args["commit"], "ctxbench: commit")
        if not args["documents"]:  # nothing to keep: no store is made or opened for it
            return {"changed": False, "runs": [], "msg": "no document given: nothing recorded"}
        from ctxbench.core import reader
        from ctxbench.core.errors import shown
        from ctxbench.core.store import choice
        from ctxbench.records import RECORDS
        place = choice.decide(args["store"], writes=True, measuring=True)
        docs = [(path, reader.load(path, RECORDS)) for path in args["documents"]]  # all read before the store
        if place is None:
            return {"changed": False, "msg": f"recorded in no store (off): {', '.join(shown(p) for p, _ in docs)}"}
        if check:
            return {"changed": bool(docs), "msg": f"would record {len(docs)} document(s) in {place.name}"}
        return _added(place, docs, commit)


def _added(place, docs: list, commit: str | None) -> dict:
    from ctxbench.core.errors import shown
    from ctxbench.core.store import record
    from ctxbench.core.store.db import Store
    store = Store(place)
    runs, said = [], []
    with store.begin() as conn:
        for path, doc in docs:
            run_id, added = record.add(conn, doc, commit)
            runs.append({"document": path, "run": run_id, "added": added})
            said.append(f"added: {shown(path)} (run {run_id})" if added else
                        f"already kept: {shown(path)} (run {run_id})")
    new = sum(r["added"] for r in runs)
    # said once the transaction committed, as `ctxbench store add` says it
    return {"changed": new > 0, "runs": runs, "store": store.name,
            "msg": "; ".join([*said, f"{new} of {len(docs)} document(s) added to {store.name}"])}
