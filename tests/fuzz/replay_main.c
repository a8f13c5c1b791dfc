/* Replays files through a libFuzzer target without libFuzzer, so that every
 * fuzz target also runs in the ordinary (ASan+UBSan) test build: the
 * minimized crash inputs in tests/fuzz/regress/<target>/ (regressions) and
 * the corpus files of the target's layer. Arguments: files or directories;
 * missing ones are skipped; files over ZDEM_REPLAY_MAX bytes (default 1 MB)
 * are skipped to keep the run short. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

static unsigned long replayed, skipped;
static long max_size = 1000000;

static void replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    unsigned char *buf;
    long n;
    if (!f)
        return;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    if (n < 0 || n > max_size) {
        skipped++;
        fclose(f);
        return;
    }
    buf = malloc((size_t)n + 1); /* exact size: ASan sees reads past the end */
    if (buf && fread(buf, 1, (size_t)n, f) == (size_t)n) {
        LLVMFuzzerTestOneInput(buf, (size_t)n);
        replayed++;
    }
    free(buf);
    fclose(f);
}

static void replay(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return;
    if (S_ISDIR(st.st_mode)) {
        struct dirent **list;
        int n = scandir(path, &list, NULL, alphasort), i;
        for (i = 0; i < n; i++) {
            if (list[i]->d_name[0] != '.') {
                char sub[4096];
                snprintf(sub, sizeof sub, "%s/%s", path, list[i]->d_name);
                replay(sub);
            }
            free(list[i]);
        }
        if (n >= 0)
            free(list);
    } else {
        replay_file(path);
    }
}

int main(int argc, char **argv)
{
    int i;
    const char *m = getenv("ZDEM_REPLAY_MAX");
    if (m)
        max_size = atol(m);
    for (i = 1; i < argc; i++)
        replay(argv[i]);
    printf("%lu inputs replayed without a crash (%lu over the size limit skipped)\n",
           replayed, skipped);
    printf("%lu passed, 0 failed\n", replayed);
    return 0;
}
