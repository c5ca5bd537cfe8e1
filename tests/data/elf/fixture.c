// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The source of the arm64 and riscv64 ELF fixtures beside it (make
 * elf-fixtures): a PIE with local and global functions, and the same as a
 * shared library stripped to its .dynsym. tests/unit/symbols/check_elf_arches.c reads them.
 */
static volatile int counter;

__attribute__((noinline)) static int fxs_static_leaf(int x)
{
	counter += x;
	return counter * 3;
}

__attribute__((noinline)) int fxs_alpha(int x)
{
	return fxs_static_leaf(x) + 1;
}

__attribute__((noinline)) int fxs_beta(int x)
{
	return fxs_alpha(x) * 2;
}

#ifndef FXS_LIB
int main(int argc, char **argv)
{
	return fxs_beta(argc) > 100;
}
#endif
