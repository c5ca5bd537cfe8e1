/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A minimal protobuf reader of profile.proto, independent of the encoder in
 * daemon/report/report_pprof.c, for the tests that check a pprof output
 * (check_report_pprof.c, check_report_run.c).
 */
#ifndef FXS_TESTS_REPORT_PPROF_READER_H
#define FXS_TESTS_REPORT_PPROF_READER_H

#include "report_fixture.h"

struct pb {
	const uint8_t *p, *end;
};

static FIXTURE_FN bool pb_varint(struct pb *b, uint64_t *ret)
{
	uint64_t v = 0;
	unsigned shift;

	for (shift = 0; shift < 64 && b->p < b->end; shift += 7) {
		uint8_t c = *b->p++;

		v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80)) {
			*ret = v;
			return true;
		}
	}
	return false;
}

/* The next field: its number, wire type, and value or bytes. */
static FIXTURE_FN bool pb_next(struct pb *b, unsigned *field, unsigned *wire, uint64_t *v,
			       struct pb *sub)
{
	uint64_t key, len;

	if (b->p >= b->end || !pb_varint(b, &key))
		return false;
	*field = (unsigned)(key >> 3);
	*wire = key & 7;
	switch (*wire) {
	case 0:
		return pb_varint(b, v);
	case 2:
		if (!pb_varint(b, &len) || len > (uint64_t)(b->end - b->p))
			return false;
		sub->p = b->p;
		sub->end = b->p + len;
		b->p += len;
		return true;
	default:
		/* The encoder writes no fixed32/fixed64 fields. */
		return false;
	}
}

struct label {
	uint64_t key, str, num;
};

struct profile {
	char *strings[256];
	unsigned nr_strings;
	unsigned nr_samples, nr_locations, nr_functions, nr_mappings, nr_sample_types;
	uint64_t value_sum, cpu_sum; /* the two sample values */
	unsigned max_location_ids;
	uint64_t function_names[64];
	uint64_t function_system_names[64];
	uint64_t location_ids[64], location_used[64];
	uint64_t function_ids[64], function_used[64];
	uint64_t sample_types[2][2];
	uint64_t period, duration, time_nanos, period_type[2];
	uint64_t mapping_file, mapping_build_id, mapping_start;
	/* has_functions, has_filenames, has_line_numbers of every mapping, ANDed */
	bool mapping_has[3];
	uint64_t comments[16]; /* string indices */
	unsigned nr_comments;
	/* The labels of every sample, in order. */
	struct label labels[64][4];
	unsigned nr_labels[64];
};

/* The repeated varints of a field into v[*n..]. */
static FIXTURE_FN void pb_collect(unsigned wire, uint64_t x, struct pb *sub, uint64_t *v,
				  unsigned *n, unsigned max)
{
	if (wire == 0) {
		ck_assert_uint_lt(*n, max);
		v[(*n)++] = x;
		return;
	}
	while (sub->p < sub->end) {
		ck_assert(pb_varint(sub, &x));
		ck_assert_uint_lt(*n, max);
		v[(*n)++] = x;
	}
}

static FIXTURE_FN void pb_pair(struct pb *sub, uint64_t *a, uint64_t *b)
{
	unsigned f, w;
	uint64_t v;
	struct pb inner;

	*a = *b = 0;
	while (sub->p < sub->end) {
		ck_assert(pb_next(sub, &f, &w, &v, &inner));
		if (f == 1)
			*a = v;
		if (f == 2)
			*b = v;
	}
}

static FIXTURE_FN void parse_profile(const uint8_t *data, size_t len, struct profile *pr)
{
	struct pb b = {data, data + len}, sub, inner;
	unsigned field, wire, f2, w2, hi;
	uint64_t v, v2;

	memset(pr, 0, sizeof(*pr));
	while (b.p < b.end) {
		ck_assert(pb_next(&b, &field, &wire, &v, &sub));
		switch (field) {
		case 1:
			ck_assert_uint_lt(pr->nr_sample_types, 2);
			pb_pair(&sub, &pr->sample_types[pr->nr_sample_types][0],
				&pr->sample_types[pr->nr_sample_types][1]);
			pr->nr_sample_types++;
			break;
		case 2: {
			uint64_t ids[256], values[4];
			unsigned nr_ids = 0, nr_values = 0, i, k = pr->nr_samples;

			ck_assert_uint_eq(wire, 2);
			ck_assert_uint_lt(k, 64);
			pr->nr_samples++;
			while (sub.p < sub.end) {
				ck_assert(pb_next(&sub, &f2, &w2, &v2, &inner));
				if (f2 == 1)
					pb_collect(w2, v2, &inner, ids, &nr_ids, 256);
				else if (f2 == 2)
					pb_collect(w2, v2, &inner, values, &nr_values, 4);
				else if (f2 == 3) {
					struct label *l = &pr->labels[k][pr->nr_labels[k]];
					unsigned f3, w3;
					uint64_t v3;
					struct pb in3;

					ck_assert_uint_lt(pr->nr_labels[k], 4);
					pr->nr_labels[k]++;
					while (inner.p < inner.end) {
						ck_assert(pb_next(&inner, &f3, &w3, &v3, &in3));
						if (f3 == 1)
							l->key = v3;
						if (f3 == 2)
							l->str = v3;
						if (f3 == 3)
							l->num = v3;
					}
				}
			}
			/*
			 * One value per sample type (written before the samples):
			 * samples, then cpu nanoseconds; or one, off-CPU time.
			 */
			ck_assert_uint_eq(nr_values, pr->nr_sample_types);
			ck_assert_uint_ge(nr_values, 1);
			pr->value_sum += values[0];
			if (nr_values == 2)
				pr->cpu_sum += values[1];
			for (i = 0; i < nr_ids; i++) {
				ck_assert_uint_gt(ids[i], 0);
				ck_assert_uint_le(ids[i], 64);
				pr->location_used[ids[i] - 1] = 1;
			}
			if (nr_ids > pr->max_location_ids)
				pr->max_location_ids = nr_ids;
			break;
		}
		case 3: {
			bool has[3] = {};

			pr->nr_mappings++;
			while (sub.p < sub.end) {
				ck_assert(pb_next(&sub, &f2, &w2, &v2, &inner));
				if (f2 == 2)
					pr->mapping_start = v2;
				if (f2 == 5)
					pr->mapping_file = v2;
				if (f2 == 6)
					pr->mapping_build_id = v2;
				if (f2 >= 7 && f2 <= 9)
					has[f2 - 7] = v2 == 1;
			}
			for (hi = 0; hi < 3; hi++)
				pr->mapping_has[hi] =
					(pr->nr_mappings == 1 || pr->mapping_has[hi]) && has[hi];
			break;
		}
		case 4:
			ck_assert_uint_lt(pr->nr_locations, 64);
			while (sub.p < sub.end) {
				ck_assert(pb_next(&sub, &f2, &w2, &v2, &inner));
				if (f2 == 1)
					pr->location_ids[pr->nr_locations] = v2;
				if (f2 == 4) {
					uint64_t fid, line;

					pb_pair(&inner, &fid, &line);
					ck_assert_uint_gt(fid, 0);
					ck_assert_uint_le(fid, 64);
					pr->function_used[fid - 1] = 1;
				}
			}
			pr->nr_locations++;
			break;
		case 5:
			ck_assert_uint_lt(pr->nr_functions, 64);
			while (sub.p < sub.end) {
				ck_assert(pb_next(&sub, &f2, &w2, &v2, &inner));
				if (f2 == 1)
					pr->function_ids[pr->nr_functions] = v2;
				if (f2 == 2)
					pr->function_names[pr->nr_functions] = v2;
				if (f2 == 3)
					pr->function_system_names[pr->nr_functions] = v2;
			}
			pr->nr_functions++;
			break;
		case 6:
			ck_assert_uint_eq(wire, 2);
			ck_assert_uint_lt(pr->nr_strings, 256);
			pr->strings[pr->nr_strings] =
				strndup((const char *)sub.p, (size_t)(sub.end - sub.p));
			ck_assert_ptr_nonnull(pr->strings[pr->nr_strings]);
			pr->nr_strings++;
			break;
		case 9:
			pr->time_nanos = v;
			break;
		case 10:
			pr->duration = v;
			break;
		case 11:
			pb_pair(&sub, &pr->period_type[0], &pr->period_type[1]);
			break;
		case 12:
			pr->period = v;
			break;
		case 13:
			ck_assert_uint_eq(wire, 0);
			ck_assert_uint_lt(pr->nr_comments, 16);
			pr->comments[pr->nr_comments++] = v;
			break;
		default:
			break;
		}
	}
}

static FIXTURE_FN void free_profile(struct profile *pr)
{
	unsigned i;

	for (i = 0; i < pr->nr_strings; i++)
		free(pr->strings[i]);
}

static FIXTURE_FN bool has_string(const struct profile *pr, const char *s)
{
	unsigned i;

	for (i = 0; i < pr->nr_strings; i++)
		if (!strcmp(pr->strings[i], s))
			return true;
	return false;
}

static FIXTURE_FN uint8_t *gunzip(const void *data, size_t len, size_t *ret_len)
{
	z_stream zs = {};
	size_t cap = 1 << 16, out_len = 0;
	uint8_t *out = malloc(cap);
	int zerr;

	ck_assert_ptr_nonnull(out);
	/* 15 + 16: gzip only, so a raw zlib stream would fail here. */
	ck_assert_int_eq(inflateInit2(&zs, 15 + 16), Z_OK);
	zs.next_in = (Bytef *)data;
	zs.avail_in = (uInt)len;
	do {
		if (out_len == cap) {
			cap *= 2;
			out = realloc(out, cap);
			ck_assert_ptr_nonnull(out);
		}
		zs.next_out = out + out_len;
		zs.avail_out = (uInt)(cap - out_len);
		zerr = inflate(&zs, Z_NO_FLUSH);
		ck_assert_msg(zerr == Z_OK || zerr == Z_STREAM_END, "inflate: %d", zerr);
		out_len = cap - zs.avail_out;
	} while (zerr != Z_STREAM_END);
	ck_assert_uint_eq(zs.avail_in, 0);
	inflateEnd(&zs);
	*ret_len = out_len;
	return out;
}

static FIXTURE_FN const char *label_str(const struct profile *pr, unsigned sample, const char *key,
					bool num, uint64_t *ret_num)
{
	unsigned i;

	for (i = 0; i < pr->nr_labels[sample]; i++) {
		const struct label *l = &pr->labels[sample][i];

		if (strcmp(pr->strings[l->key], key))
			continue;
		if (num) {
			*ret_num = l->num;
			return "";
		}
		return pr->strings[l->str];
	}
	return NULL;
}

/* Tables numbered 1..n, every entry used: no unused location or function. */
static FIXTURE_FN void check_tables(const struct profile *pr)
{
	unsigned i;

	for (i = 0; i < pr->nr_locations; i++) {
		ck_assert_uint_eq(pr->location_ids[i], i + 1);
		ck_assert_msg(pr->location_used[i], "location %u unused", i + 1);
	}
	for (i = 0; i < pr->nr_functions; i++) {
		ck_assert_uint_eq(pr->function_ids[i], i + 1);
		ck_assert_msg(pr->function_used[i], "function %u unused", i + 1);
		ck_assert_uint_lt(pr->function_names[i], pr->nr_strings);
	}
}

static FIXTURE_FN void pprof_of(struct report *r, struct profile *pr)
{
	struct capture c;
	uint8_t *raw;
	size_t raw_len;

	ck_assert_int_eq(report_write_pprof(r, capture_open(&c)), 0);
	capture_text(&c);
	ck_assert_uint_gt(c.len, 20);
	raw = gunzip(c.buf, c.len, &raw_len);
	parse_profile(raw, raw_len, pr);
	free(raw);
	free(c.buf);
}

/* The gzipped profile report wrote to path. */
static FIXTURE_FN void pprof_file(const char *path, struct profile *pr)
{
	size_t len;
	char *data = slurp(path, &len);
	uint8_t *raw = gunzip(data, len, &len);

	parse_profile(raw, len, pr);
	free(raw);
	free(data);
}

/*
 * report_run()'s pprof and perf script of the .fxt at path (written as
 * path.pb.gz and path.perf): the profile in *pr, the perf script returned
 * (a string to free).
 */
static FIXTURE_FN char *report_pprof_perf_script(const char *path, struct profile *pr)
{
	char pb[PATH_MAX + 32], ps[PATH_MAX + 32];
	struct report_opts o = {.pprof_path = pb, .perf_script_path = ps};
	size_t len;

	ck_assert_int_lt(snprintf(pb, sizeof(pb), "%s.pb.gz", path), (int)sizeof(pb));
	ck_assert_int_lt(snprintf(ps, sizeof(ps), "%s.perf", path), (int)sizeof(ps));
	free(report_text(path, &o));
	pprof_file(pb, pr);
	return slurp(ps, &len);
}

#endif /* FXS_TESTS_REPORT_PPROF_READER_H */
