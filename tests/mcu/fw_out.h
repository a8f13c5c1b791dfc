/* Shared by the QEMU firmwares (firmware.c: Quake III and Teeworlds;
 * firmware_s2.c: Source 2 events): the board (demo table, arena, stack
 * painting) and JSON output through semihosting, without printf. */
#ifndef ZDEM_MCU_FW_OUT_H
#define ZDEM_MCU_FW_OUT_H

#include <stddef.h>
#include <stdint.h>

int zdem_mcu_semihost(int op, const void *arg); /* startup.S */
void zdem_mcu_exit(int status);                 /* startup.S */

extern uint8_t __data_start[], __data_end[], __bss_start[], __bss_end[];
extern uint8_t __arena_start[], __arena_end[], __stack_limit[], __stack_top[];
extern const uint8_t __demos_start[], __demos_end[];

typedef struct mcu_demo {
    const char *name;
    const uint8_t *data;
    uint32_t size;
} mcu_demo;
extern const mcu_demo zdem_mcu_demos[]; /* demos.S */
extern const uint32_t zdem_mcu_demo_count;

void flush(void);
void put_c(char c);
void put_n(const char *s, size_t n);
void put_s(const char *s);
void put_u(uint64_t v);
void put_i(int64_t v);
void put_hex(const uint8_t *d, size_t n);
void put_json(const uint8_t *s, size_t n);
void put_jcstr(const char *s);
void put_key(const char *k);
void put_bool(int v);
void begin_line(const char *name);

/* The parsers' memory: the arena the linker script leaves free, 8-aligned
 * (NULL when need is more); arena_peak keeps the largest handed out. */
void *arena(size_t need, size_t *have);
extern size_t arena_peak;

/* Stack high-water mark since the last repaint_stack (startup.S paints
 * the whole stack first). */
size_t stack_used(void);
void repaint_stack(void);
void put_stack_line(const char *name, const char *format, size_t used);

#endif
