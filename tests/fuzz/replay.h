/* tests/fuzz/replay.h - a main() for the fuzz harnesses when built without libFuzzer: every
   argument is a file or a directory of files, each run once through LLVMFuzzerTestOneInput.
   Built with -DRC_FUZZ_LIBFUZZER (and -fsanitize=fuzzer) the harness has no main of its own;
   with -DRC_FUZZ_NO_MAIN neither (tests/fuzz/replay_all.c: every harness in one program).
   Also the byte reader the harnesses share. */
#ifndef RC_FUZZ_REPLAY_H
#define RC_FUZZ_REPLAY_H
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C"
#endif
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
typedef int (*rc_fuzz_fn)(const uint8_t *data, size_t size);

/* the input as a stream of bytes; past its end every byte reads 0 */
typedef struct { const uint8_t *p; size_t n, i; } fz_in;
static RC__UNUSED unsigned fz_byte(fz_in *in) { return in->i < in->n ? in->p[in->i++] : 0u; }

#ifndef RC_FUZZ_LIBFUZZER
#include <dirent.h>
#include <sys/stat.h>

static int rc_fuzz_run_file(const char *path, rc_fuzz_fn fn)
{
    FILE *fp = fopen(path, "rb");
    uint8_t *buf;
    long n;
    if (!fp) { fprintf(stderr, "cannot open %s\n", path); return 1; }
    fseek(fp, 0, SEEK_END);
    n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    buf = (uint8_t *)malloc(n > 0 ? (size_t)n : 1);
    if (!buf || (n > 0 && fread(buf, 1, (size_t)n, fp) != (size_t)n)) { fclose(fp); free(buf); return 1; }
    fclose(fp);
    fn(buf, (size_t)n);
    free(buf);
    return 0;
}

/* argv[0] names the program in the summary line; argv[1..argc) are files or directories */
static int rc_fuzz_replay(const char *name, int argc, char **argv, rc_fuzz_fn fn)
{
    int i, files = 0, bad = 0;
    for (i = 0; i < argc; ++i) {
        struct stat sb;
        if (stat(argv[i], &sb) == 0 && S_ISDIR(sb.st_mode)) {
            DIR *d = opendir(argv[i]);
            struct dirent *e;
            if (!d) { ++bad; continue; }
            while ((e = readdir(d)) != NULL) {
                char p[4096];
                if (e->d_name[0] == '.') continue;
                snprintf(p, sizeof p, "%s/%s", argv[i], e->d_name);
                bad += rc_fuzz_run_file(p, fn);
                ++files;
            }
            closedir(d);
        } else {
            bad += rc_fuzz_run_file(argv[i], fn);
            ++files;
        }
    }
    printf("%s: replayed %d inputs\n", name, files);
    return bad;
}

#ifndef RC_FUZZ_NO_MAIN
int main(int argc, char **argv)
{
    return rc_fuzz_replay(argv[0], argc - 1, argv + 1, LLVMFuzzerTestOneInput) ? 1 : 0;
}
#endif
#endif
#endif
