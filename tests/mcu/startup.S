/* Minimal Cortex-M startup for the zdem firmware under QEMU: vector table,
 * .data copy, .bss clear, stack painting (for the high-water mark), FPU
 * enable (the code is built with -mfloat-abi=hard), main, semihosting
 * exit. Also the one semihosting trap the firmware needs. */
    .syntax unified
    .thumb

    .section .vectors, "a"
    .align 2
    .global zdem_mcu_vectors
zdem_mcu_vectors:
    .word __stack_top
    .word Reset_Handler
    .word Fault_Handler      /* NMI */
    .word Fault_Handler      /* HardFault */
    .word Fault_Handler      /* MemManage */
    .word Fault_Handler      /* BusFault */
    .word Fault_Handler      /* UsageFault */

    .text
    .align 2
    .global Reset_Handler
    .type Reset_Handler, %function
    .thumb_func
Reset_Handler:
    /* copy .data from flash */
    ldr r0, =__data_start
    ldr r1, =__data_end
    ldr r2, =__data_load
1:  cmp r0, r1
    bhs 2f
    ldr r3, [r2], #4
    str r3, [r0], #4
    b 1b
2:  /* clear .bss */
    ldr r0, =__bss_start
    ldr r1, =__bss_end
    movs r3, #0
3:  cmp r0, r1
    bhs 4f
    str r3, [r0], #4
    b 3b
4:  /* paint the stack (nothing is on it yet) */
    ldr r0, =__stack_limit
    ldr r1, =__stack_top
    ldr r3, =0xA5A5A5A5
5:  cmp r0, r1
    bhs 6f
    str r3, [r0], #4
    b 5b
6:
#if defined(__ARM_FP)
    /* CPACR: full access to CP10/CP11 */
    ldr r0, =0xE000ED88
    ldr r1, [r0]
    orr r1, r1, #(0xF << 20)
    str r1, [r0]
    dsb
    isb
#endif
    bl main
    bl zdem_mcu_exit
7:  b 7b
    .size Reset_Handler, . - Reset_Handler

    .global Fault_Handler
    .type Fault_Handler, %function
    .thumb_func
Fault_Handler:
    ldr r1, =fault_msg
    movs r0, #4              /* SYS_WRITE0 */
    bkpt 0xab
    movs r0, #1
    bl zdem_mcu_exit
8:  b 8b
    .size Fault_Handler, . - Fault_Handler

/* int zdem_mcu_semihost(int op, const void *arg) */
    .global zdem_mcu_semihost
    .type zdem_mcu_semihost, %function
    .thumb_func
zdem_mcu_semihost:
    bkpt 0xab
    bx lr
    .size zdem_mcu_semihost, . - zdem_mcu_semihost

/* void zdem_mcu_exit(int status): SYS_EXIT; QEMU exits 0 for
 * ADP_Stopped_ApplicationExit and 1 for any other reason. */
    .global zdem_mcu_exit
    .type zdem_mcu_exit, %function
    .thumb_func
zdem_mcu_exit:
    cmp r0, #0
    ite eq
    ldreq r1, =0x20026       /* ADP_Stopped_ApplicationExit */
    ldrne r1, =0x20023       /* ADP_Stopped_RunTimeErrorUnknown */
    movs r0, #0x18           /* SYS_EXIT */
    bkpt 0xab
9:  b 9b
    .size zdem_mcu_exit, . - zdem_mcu_exit

    .section .rodata.fault_msg, "a"
fault_msg:
    .asciz "\nzdem-mcu: FAULT\n"
