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
  lea rcx, [rsi+0x20]
  cmp rcx, rdx
  jg L2
  vmovups zmm0, [r9+rsi*4]
  vmovups zmm1, [r10+rsi*4]
  vmulps zmm0, zmm0, [r8]{1to16}
  vaddps zmm0, zmm0, zmm1
  vmovups [rdi+rsi*4], zmm0
  vmovups zmm0, [r9+rsi*4+0x40]
  vmovups zmm1, [r10+rsi*4+0x40]
  vmulps zmm0, zmm0, [r8]{1to16}
  vaddps zmm0, zmm0, zmm1
  vmovups [rdi+rsi*4+0x40], zmm0
  add rsi, 0x20
  jmp L1
L2:
  lea rcx, [rsi+0x10]
  cmp rcx, rdx
  jg L3
  vmovups zmm0, [r9+rsi*4]
  vmovups zmm1, [r10+rsi*4]
  vmulps zmm0, zmm0, [r8]{1to16}
  vaddps zmm0, zmm0, zmm1
  vmovups [rdi+rsi*4], zmm0
  add rsi, 0x10
L3:
  mov rcx, rdx
  sub rcx, rsi
  jle L4
  mov r11d, 0x1
  shl r11d, cl
  dec r11d
  kmovw k7, r11d
  vmovups zmm0{k7}{z}, [r9+rsi*4]
  vmovups zmm1{k7}{z}, [r10+rsi*4]
  vmulps zmm0, zmm0, [r8]{1to16}
  vaddps zmm0, zmm0, zmm1
  vmovups [rdi+rsi*4]{k7}, zmm0
L4:
  vzeroupper
  ret
L0:
