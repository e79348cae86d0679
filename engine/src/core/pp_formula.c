#include "core/pp_formula.h"

void pp_formula_sample(sample_t *out, uint64_t n, uint64_t t_single_ns, uint64_t t_switch_ns,
                       int64_t expected_voluntary, const party_counts_t *sw, int nswitch,
                       const party_counts_t *single)
{
    double t_single = (double)t_single_ns, t_switch = (double)t_switch_ns;
    out->raw[0] = t_single;
    out->raw[1] = t_switch;
    out->value = (t_switch / 2.0 - t_single) / (double)n;
    out->duration_ns = t_switch_ns;
    out->has_verify = 1;
    verify_zero(&out->v);
    out->v.expected_voluntary = expected_voluntary;
    for (int i = 0; i < nswitch; i++) verify_add_switch(&out->v, &sw[i]);
    verify_add_single(&out->v, single);
}
