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

/* Path of a corpus file ("q3/foo.dm_68") under $ZDEM_CORPUS. */
const char *zt_corpus_path(const char *rel);
/* Reads a whole file into a malloc'd buffer (tests may allocate); NULL on error. */
uint8_t *zt_read_file(const char *path, size_t *size);
/* Prints the closing line and returns the process exit status. */
int zt_finish(void);

#endif
