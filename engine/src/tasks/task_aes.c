/* aes: AES-128 (OpenSSL libcrypto, CTR mode, so the stream is cut into
 * units without padding) over a large generated stream. The ciphertext of
 * every chunk is folded into the result. */
#include "tasks/task_stream.h"
#include "core/bench.h"
#include <stdlib.h>
#include <string.h>
#ifdef HAVE_LIBCRYPTO
#include <openssl/evp.h>

#define AES_BYTES (700.0 * 1024 * 1024) /* at scale 1: about half a second here */
#define AES_CHUNK 4096                  /* a few µs: see docs/tasks.md#what-a-chunk-is */

typedef struct {
    stream_t in;
    EVP_CIPHER_CTX *ctx;
    uint8_t *out;
    uint64_t acc;
    int error;
} aes_t;

static const unsigned char key[16] = "ctxbench-aes-key";
static const unsigned char iv[16] = "seed000-ctr-iv-0";

static int init(task_t *t)
{
    aes_t *a = calloc(1, sizeof *a);
    if (!a) {
        bench_error("aes: out of memory");
        return -1;
    }
    t->st = a;
    a->out = aligned_alloc(4096, AES_CHUNK);
    a->ctx = EVP_CIPHER_CTX_new();
    if (!a->out || !a->ctx) {
        bench_error("aes: out of memory");
        return -1;
    }
    return stream_init(t, &a->in, AES_BYTES * t->scale, AES_CHUNK, 0, 0xae5ull);
}

static void reset(task_t *t)
{
    aes_t *a = t->st;
    a->error = EVP_EncryptInit_ex(a->ctx, EVP_aes_128_ctr(), NULL, key, iv) != 1;
    memset(a->out, 0, AES_CHUNK);
    a->acc = 0;
}

static void run(task_t *t, size_t u0, size_t u1)
{
    aes_t *a = t->st;
    for (size_t u = u0; u < u1 && !a->error; u++) {
        int len = 0;
        if (EVP_EncryptUpdate(a->ctx, a->out, &len, stream_chunk(&a->in, u), AES_CHUNK) != 1 ||
            len != (int)AES_CHUNK) {
            a->error = 1;
            break;
        }
        const uint64_t *w = (const uint64_t *)a->out;
        uint64_t x = 0;
        for (size_t i = 0; i < AES_CHUNK / 8; i++) x += w[i] ^ (x >> 7);
        a->acc = (a->acc ^ x) * 0x9E3779B97F4A7C15ull + u;
    }
}

static uint64_t result(task_t *t)
{
    aes_t *a = t->st;
    return a->error ? 0 : a->acc | 1;
}

static void corrupt(task_t *t)
{
    ((aes_t *)t->st)->in.buf[4242] ^= 0x80;
}

static void fini(task_t *t)
{
    aes_t *a = t->st;
    if (!a) return;
    EVP_CIPHER_CTX_free(a->ctx);
    stream_fini(&a->in);
    free(a->out);
    free(a);
    t->st = NULL;
}

const task_ops_t task_aes = {
    "aes", "AES-128-CTR (OpenSSL libcrypto) of a generated stream", init, reset, run, result, corrupt, fini,
    1};
#else
static int na(task_t *t)
{
    (void)t;
    bench_error("task 'aes' is not available in this build (no libcrypto)");
    return -1;
}
const task_ops_t task_aes = {"aes", "AES-128: not available in this build", na, NULL, NULL, NULL, NULL, NULL,
                             0};
#endif
