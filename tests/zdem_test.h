/* Minimal test harness: CHECK macros, corpus file loading, a closing line
 * of the form "N passed, N failed". */
#ifndef ZDEM_TEST_H
#define ZDEM_TEST_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

extern int zt_passed, zt_failed;

#define CHECK(cond) zt_check(!!(cond), #cond, __FILE__, __LINE__)
#define CHECK_EQ_INT(a, b) zt_check_int((long long)(a), (long long)(b), #a, #b, __FILE__, __LINE__)
#define CHECK_EQ_STR(a, b) zt_check_str((a), (b), #a, __FILE__, __LINE__)

int zt_check(int ok, const char *expr, const char *file, int line);
int zt_check_int(long long a, long long b, const char *ea, const char *eb, const char *file, int line);
int zt_check_str(const char *a, const char *b, const char *ea, const char *file, int line);

/* ZT_POISON/ZT_UNPOISON: mark bytes past a simulated end of file as
 * unreadable under ASan, so a read beyond a truncation is reported even
 * though the buffer is longer; no-ops without ASan. */
#if defined(__SANITIZE_ADDRESS__)
#define ZT_HAVE_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ZT_HAVE_ASAN 1
#endif
#endif
#ifdef ZT_HAVE_ASAN
#include <sanitizer/asan_interface.h>
#define ZT_POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define ZT_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define ZT_POISON(p, n) ((void)(p), (void)(n))
#define ZT_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

/* Path of a corpus file ("q3/foo.dm_68") under $ZDEM_CORPUS. */
const char *zt_corpus_path(const char *rel);
/* Reads a whole file into a malloc'd buffer (tests may allocate); NULL on error. */
uint8_t *zt_read_file(const char *path, size_t *size);
/* xorshift64*: a deterministic pseudo-random stream (the same cases on
 * every run); *state must not be 0. */
uint64_t zt_rand(uint64_t *state);
/* Prints the closing line and returns the process exit status. */
int zt_finish(void);

#endif
