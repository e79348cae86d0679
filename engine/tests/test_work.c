/* The traversal touches every element exactly once per pass, for every
 * stride (docs/method.md#working-set-sweep), and its stores really happen. */
#include "check.h"
#include "core/work.h"

int main(void)
{
    const size_t sizes[] = {1024, 4096, 40960, 1 << 20};
    const size_t strides[] = {8, 16, 32, 64, 128, 256};
    for (size_t a = 0; a < sizeof sizes / sizeof *sizes; a++)
        for (size_t b = 0; b < sizeof strides / sizeof *strides; b++) {
            work_t w;
            CHECK(work_init(&w, sizes[a], strides[b]) == 0, "init %zu", sizes[a]);
            size_t len = sizes[a] / sizeof(work_elem_t);
            for (int pass = 1; pass <= 3; pass++) {
                uint64_t touched = work_pass(&w);
                CHECK(touched == len, "size %zu stride %zu: touched %llu", sizes[a], strides[b],
                      (unsigned long long)touched);
            }
            size_t wrong = 0;
            for (size_t i = 0; i < len; i++)
                if (w.a[i] != 3.0) wrong++;
            CHECK(wrong == 0, "size %zu stride %zu: %zu elements not incremented exactly 3 times", sizes[a],
                  strides[b], wrong);
            work_fini(&w);
        }
    work_t none;
    CHECK(work_init(&none, 4096, 0) == 0 && work_pass(&none) == 0, "stride 0 is no work");
    CHECK_DONE("work traversal");
}
