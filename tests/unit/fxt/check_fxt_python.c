// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The payloads of the Python blob records (fxt/fxt_python.h). */
#include <check.h>
#include <string.h>

#include "fxt/fxt.h"
#include "fxt/fxt_python.h"
#include "check_main.h"

START_TEST(test_pycode)
{
	static uint8_t buf[FXT_MAX_BLOB_LEN];
	const uint8_t table[] = {0x80, 0x00, 0xd8};
	struct fxt_pycode c = {
		.id = 7,
		.firstlineno = -3,
		.pid = 1234,
		.qualname = "Outer.inner",
		.qualname_len = 11,
		.filename = "/srv/app.py",
		.filename_len = 11,
		.table = table,
		.table_len = 3,
	};
	struct fxt_pycode d;
	size_t n = fxt_pycode_encode(buf, &c);

	ck_assert_uint_eq(n, FXT_PYCODE_HDR + 11 + 11 + 3);
	ck_assert(fxt_pycode_decode(buf, n, &d));
	ck_assert_uint_eq(d.id, 7);
	ck_assert_int_eq(d.firstlineno, -3);
	ck_assert_uint_eq(d.pid, 1234);
	ck_assert(d.qualname_len == 11 && !memcmp(d.qualname, "Outer.inner", 11));
	ck_assert(d.filename_len == 11 && !memcmp(d.filename, "/srv/app.py", 11));
	ck_assert(d.table_len == 3 && !memcmp(d.table, table, 3));
	/* a length that does not add up, a cut header, id 0 */
	ck_assert(!fxt_pycode_decode(buf, n - 1, &d));
	ck_assert(!fxt_pycode_decode(buf, FXT_PYCODE_HDR - 1, &d));
	ck_assert(!fxt_pycode_decode(NULL, 0, &d));
	c.id = 0;
	ck_assert_uint_eq(fxt_pycode_encode(buf, &c), 0);
	/* past a cap: not encoded; at every cap: within a blob */
	c.id = 1;
	c.table_len = FXT_PY_TABLE_MAX + 1;
	ck_assert_uint_eq(fxt_pycode_encode(buf, &c), 0);
	ck_assert_uint_lt(FXT_PYCODE_HDR + FXT_PY_NAME_MAX + FXT_PY_FILE_MAX + FXT_PY_TABLE_MAX,
			  FXT_MAX_BLOB_LEN);
}
END_TEST

START_TEST(test_pystack)
{
	const struct fxt_pyframe f[2] = {{3, 41, FXT_PYF_ENTRY}, {9, -1, 0}};
	uint8_t buf[FXT_PYSTACK_HDR + 2 * FXT_PYFRAME_SIZE];
	uint64_t ts, tid;
	uint32_t end;
	unsigned nr;
	struct fxt_pyframe g;
	size_t n = fxt_pystack_encode(buf, 99, 5, 1, f, 2);

	ck_assert_uint_eq(n, sizeof(buf));
	ck_assert(fxt_pystack_decode(buf, n, &ts, &tid, &end, &nr));
	ck_assert_uint_eq(ts, 99);
	ck_assert_uint_eq(tid, 5);
	ck_assert_uint_eq(end, 1);
	ck_assert_uint_eq(nr, 2);
	fxt_pystack_frame(buf, 0, &g);
	ck_assert(g.code == 3 && g.lasti == 41 && g.flags == FXT_PYF_ENTRY);
	fxt_pystack_frame(buf, 1, &g);
	ck_assert(g.code == 9 && g.lasti == -1 && g.flags == 0);
	/* a frame count the length does not hold */
	ck_assert(!fxt_pystack_decode(buf, n - 1, &ts, &tid, &end, &nr));
	ck_assert(!fxt_pystack_decode(buf, FXT_PYSTACK_HDR - 1, &ts, &tid, &end, &nr));
}
END_TEST

static Suite *fxt_python_suite(void)
{
	Suite *s = suite_create("fxt_python");
	TCase *tc = tcase_create("payloads");

	tcase_add_test(tc, test_pycode);
	tcase_add_test(tc, test_pystack);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(fxt_python_suite)
