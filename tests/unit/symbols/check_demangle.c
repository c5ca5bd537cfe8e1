// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * symbols/demangle: C++ and Rust names as `c++filt -i` (binutils 2.40) prints
 * them, names that are not mangled left alone, and the memo handing each
 * distinct name's form out once.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/demangle.h"
#include "check_main.h"

struct known {
	const char *raw;
	const char *shown; /* what c++filt -i prints; NULL: left as it is */
};

/* Each expected name is c++filt -i's output for the raw one. */
static const struct known knowns[] = {
	/* Itanium: a member of a template instance, with its parameters */
	{"_ZNSt6vectorIiSaIiEE9push_backERKi",
	 "std::vector<int, std::allocator<int> >::push_back(int const&)"},
	/* a standard abbreviation as gdb and perf spell it (c++filt without -i: basic_string) */
	{"_ZNSs4_Rep10_M_disposeERKSaIcE",
	 "std::string::_Rep::_M_dispose(std::allocator<char> const&)"},
	/* a versioned dynamic symbol keeps its version */
	{"_ZNSo3putEc@@GLIBCXX_3.4", "std::ostream::put(char)@@GLIBCXX_3.4"},
	/* a part gcc split off */
	{"_ZN3foo3barEv.cold", "foo::bar() [clone .cold]"},
	/* Rust legacy: the ::h<hash> left out */
	{"_ZN4core3fmt9Formatter3pad17h1234567890abcdefE", "core::fmt::Formatter::pad"},
	/* Rust v0 */
	{"_RNvCs1234_7mycrate3foo", "mycrate::foo"},
	{"_RINvNtC3std3mem8align_ofdE", "std::mem::align_of::<f64>"},
	/* not mangled */
	{"main", NULL},
	{"clock_gettime@@GLIBC_2.17", NULL},
	{"_start", NULL},
	{"[unknown]", NULL},
	{"libc.so.6+0x1234", NULL},
	/* garbage with a mangled name's prefix */
	{"_ZZZ", NULL},
	{"_Z", NULL},
	{"_Rgarbage", NULL},
	{"_ZN3fooE@", "foo@"}, /* a variable, and an empty version */
	{"@@", NULL},
	{"", NULL},
};

START_TEST(test_known)
{
	size_t i;

	if (!demangle_available()) {
		fprintf(stderr, "SKIP: built without libiberty (NO_LIBIBERTY=1 or no "
				"libiberty-dev): names are shown as they are; NOT RUN\n");
		for (i = 0; i < sizeof(knowns) / sizeof(knowns[0]); i++)
			ck_assert_ptr_null(demangle(knowns[i].raw));
		return;
	}
	for (i = 0; i < sizeof(knowns) / sizeof(knowns[0]); i++) {
		char *got = demangle(knowns[i].raw);

		if (!knowns[i].shown) {
			ck_assert_msg(!got, "'%s' demangled to '%s'", knowns[i].raw, got);
			ck_assert_int_eq(errno, 0);
		} else {
			ck_assert_msg(got, "'%s' not demangled", knowns[i].raw);
			ck_assert_str_eq(got, knowns[i].shown);
		}
		free(got);
	}
}
END_TEST

/* "_ZN<n>aaa...3fooEv": aaa...::foo() */
static void fill_name(char *raw, size_t n)
{
	size_t at = (size_t)sprintf(raw, "_ZN%zu", n);

	memset(raw + at, 'a', n);
	strcpy(raw + at + n, "3fooEv");
}

/*
 * A 1000-character identifier is demangled whole; a 3000-character one, and
 * a template nested 5000 deep (past libiberty's recursion limit), are left
 * as they are (c++filt leaves them too), without a crash.
 */
START_TEST(test_long)
{
	size_t n = 1000, deep = 5000, i;
	char *raw = malloc(3100), *got, *want;
	char *nested = malloc(5 + 3 * deep + 1 + 2 * deep + 4);

	ck_assert_ptr_nonnull(raw);
	ck_assert_ptr_nonnull(nested);
	if (!demangle_available()) {
		free(raw);
		free(nested);
		return;
	}
	fill_name(raw, n);
	want = malloc(n + 8);
	ck_assert_ptr_nonnull(want);
	memset(want, 'a', n);
	strcpy(want + n, "::foo()");
	got = demangle(raw);
	ck_assert_ptr_nonnull(got);
	ck_assert_str_eq(got, want);
	free(got);

	n = 3000;
	fill_name(raw, n);
	ck_assert_ptr_null(demangle(raw));

	strcpy(nested, "_Z1fI");
	for (i = 0; i < deep; i++)
		strcat(nested + 5 + 3 * i, "1AI");
	strcat(nested + 5 + 3 * deep, "i");
	for (i = 0; i < deep; i++)
		strcpy(nested + 6 + 3 * deep + 2 * i, "EE");
	strcat(nested + 6 + 5 * deep, "vT_");
	ck_assert_ptr_null(demangle(nested));
	free(raw);
	free(want);
	free(nested);
}
END_TEST

/* The memo: one entry per distinct name, the same string handed out again. */
START_TEST(test_demangler)
{
	struct demangler *d = demangler__new();
	const char *a, *b, *plain;
	char copy[64];

	ck_assert_ptr_nonnull(d);
	a = demangler_name(d, "_ZN4core3fmt9Formatter3pad17h1234567890abcdefE");
	ck_assert_ptr_nonnull(a);
	/* the same name in another buffer finds the same entry */
	strcpy(copy, "_ZN4core3fmt9Formatter3pad17h1234567890abcdefE");
	b = demangler_name(d, copy);
	plain = "inner";
	ck_assert_ptr_eq(demangler_name(d, plain), plain);
	ck_assert_ptr_eq(demangler_name(d, plain), plain);
	ck_assert_uint_eq(demangler_seen(d), 2);
	if (demangle_available()) {
		ck_assert_ptr_eq(a, b);
		ck_assert_str_eq(a, "core::fmt::Formatter::pad");
		ck_assert_uint_eq(demangler_demangled(d), 1);
	} else {
		ck_assert_ptr_eq(b, copy);
		ck_assert_uint_eq(demangler_demangled(d), 0);
	}
	demangler__free(d);
	demangler__free(NULL);
}
END_TEST

static Suite *demangle_suite(void)
{
	Suite *s = suite_create("demangle");
	TCase *tc = tcase_create("demangle");

	tcase_add_test(tc, test_known);
	tcase_add_test(tc, test_long);
	tcase_add_test(tc, test_demangler);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(demangle_suite)
