/* Placements are whole lines within one page, and they vary from draw to
 * draw (a fixed placement would bring back the per-execution effect). */
#include "check.h"
#include "core/placement.h"

int main(void)
{
    int seen[PLACEMENT_SPAN / PLACEMENT_LINE] = {0};
    int distinct = 0;
    for (int i = 0; i < 1000; i++) {
        size_t off = placement_offset();
        CHECK(off < PLACEMENT_SPAN && off % PLACEMENT_LINE == 0, "offset %zu", off);
        if (off < PLACEMENT_SPAN && !seen[off / PLACEMENT_LINE]++) distinct++;
    }
    /* 1000 draws over 64 lines: all 64 with probability > 1 - 64 e^-15.6 */
    CHECK(distinct == PLACEMENT_SPAN / PLACEMENT_LINE, "only %d distinct lines in 1000 draws", distinct);
    CHECK_DONE("placement");
}
