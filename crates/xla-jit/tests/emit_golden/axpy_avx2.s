  imul rsi, rsi, 0x4000
  imul rdx, rdx, 0x4000
  movabs rcx, 0xa
  cmp rdx, rcx
  cmovg rdx, rcx
  mov r8, qword ptr [rdi]
  mov r9, qword ptr [rdi+0x8]
  mov r10, qword ptr [rdi+0x10]
  mov rdi, qword ptr [rdi+0x18]
  lea rax, [rip+L0]
L1:
  lea rcx, [rsi+0x10]
  cmp rcx, rdx
  jg L2
  vmovups ymm0, [r9+rsi*4]
  vmovups ymm1, [r10+rsi*4]
  vbroadcastss ymm14, [r8]
  vmulps ymm0, ymm0, ymm14
  vaddps ymm0, ymm0, ymm1
  vmovups [rdi+rsi*4], ymm0
  vmovups ymm0, [r9+rsi*4+0x20]
  vmovups ymm1, [r10+rsi*4+0x20]
  vbroadcastss ymm14, [r8]
  vmulps ymm0, ymm0, ymm14
  vaddps ymm0, ymm0, ymm1
  vmovups [rdi+rsi*4+0x20], ymm0
  add rsi, 0x10
  jmp L1
L2:
  lea rcx, [rsi+0x8]
  cmp rcx, rdx
  jg L3
  vmovups ymm0, [r9+rsi*4]
  vmovups ymm1, [r10+rsi*4]
  vbroadcastss ymm14, [r8]
  vmulps ymm0, ymm0, ymm14
  vaddps ymm0, ymm0, ymm1
  vmovups [rdi+rsi*4], ymm0
  add rsi, 0x8
L3:
  mov rcx, rdx
  sub rcx, rsi
  jle L4
  imul r11, rcx, 0xfffffffc
  vmovups ymm15, [rax+r11*1+0x20]
  vmaskmovps ymm0, ymm15, [r9+rsi*4]
  vmaskmovps ymm1, ymm15, [r10+rsi*4]
  vbroadcastss ymm14, [r8]
  vmulps ymm0, ymm0, ymm14
  vaddps ymm0, ymm0, ymm1
  vmaskmovps [rdi+rsi*4], ymm15, ymm0
L4:
  vzeroupper
  ret
L0:
  .data 64 bytes
