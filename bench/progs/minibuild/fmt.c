// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* fmt: arithmetic enough to give the compiler some work; the result is checked by main. */
#include "minibuild.h"

struct fmt_state {
	uint64_t acc[8];
	uint32_t round;
};

static uint64_t fmt_step0(struct fmt_state *s, uint8_t b)
{
	uint64_t x = s->acc[(b + 0) & 7] ^ ((uint64_t)b << 11);
	switch (b % 5) {
	case 0: x = x * 25ULL + 0; break;
	case 1: x = x * 27ULL + 31; break;
	case 2: x = x * 29ULL + 62; break;
	case 3: x = x * 31ULL + 93; break;
	case 4: x = x * 33ULL + 124; break;
	default: x ^= x >> 13; break;
	}
	for (unsigned j = 0; j < 3; j++)
		x = (x << 5 | x >> 59) + j * 12ULL;
	s->acc[(b + 0) & 7] = x;
	s->round++;
	return x;
}

static uint64_t fmt_step1(struct fmt_state *s, uint8_t b)
{
	uint64_t x = s->acc[(b + 1) & 7] ^ ((uint64_t)b << 18);
	switch (b % 6) {
	case 0: x = x * 27ULL + 1; break;
	case 1: x = x * 29ULL + 32; break;
	case 2: x = x * 31ULL + 63; break;
	case 3: x = x * 33ULL + 94; break;
	case 4: x = x * 35ULL + 125; break;
	case 5: x = x * 37ULL + 156; break;
	default: x ^= x >> 13; break;
	}
	for (unsigned j = 0; j < 4; j++)
		x = (x << 5 | x >> 59) + j * 12ULL;
	s->acc[(b + 1) & 7] = x;
	s->round++;
	return x;
}

static uint64_t fmt_step2(struct fmt_state *s, uint8_t b)
{
	uint64_t x = s->acc[(b + 2) & 7] ^ ((uint64_t)b << 25);
	switch (b % 7) {
	case 0: x = x * 29ULL + 2; break;
	case 1: x = x * 31ULL + 33; break;
	case 2: x = x * 33ULL + 64; break;
	case 3: x = x * 35ULL + 95; break;
	case 4: x = x * 37ULL + 126; break;
	case 5: x = x * 39ULL + 157; break;
	case 6: x = x * 41ULL + 188; break;
	default: x ^= x >> 13; break;
	}
	for (unsigned j = 0; j < 5; j++)
		x = (x << 5 | x >> 59) + j * 12ULL;
	s->acc[(b + 2) & 7] = x;
	s->round++;
	return x;
}

static uint64_t fmt_step3(struct fmt_state *s, uint8_t b)
{
	uint64_t x = s->acc[(b + 3) & 7] ^ ((uint64_t)b << 32);
	switch (b % 8) {
	case 0: x = x * 31ULL + 3; break;
	case 1: x = x * 33ULL + 34; break;
	case 2: x = x * 35ULL + 65; break;
	case 3: x = x * 37ULL + 96; break;
	case 4: x = x * 39ULL + 127; break;
	case 5: x = x * 41ULL + 158; break;
	case 6: x = x * 43ULL + 189; break;
	case 7: x = x * 45ULL + 220; break;
	default: x ^= x >> 13; break;
	}
	for (unsigned j = 0; j < 6; j++)
		x = (x << 5 | x >> 59) + j * 12ULL;
	s->acc[(b + 3) & 7] = x;
	s->round++;
	return x;
}

static uint64_t fmt_step4(struct fmt_state *s, uint8_t b)
{
	uint64_t x = s->acc[(b + 4) & 7] ^ ((uint64_t)b << 39);
	switch (b % 9) {
	case 0: x = x * 33ULL + 4; break;
	case 1: x = x * 35ULL + 35; break;
	case 2: x = x * 37ULL + 66; break;
	case 3: x = x * 39ULL + 97; break;
	case 4: x = x * 41ULL + 128; break;
	case 5: x = x * 43ULL + 159; break;
	case 6: x = x * 45ULL + 190; break;
	case 7: x = x * 47ULL + 221; break;
	case 8: x = x * 49ULL + 252; break;
	default: x ^= x >> 13; break;
	}
	for (unsigned j = 0; j < 7; j++)
		x = (x << 5 | x >> 59) + j * 12ULL;
	s->acc[(b + 4) & 7] = x;
	s->round++;
	return x;
}

static uint64_t fmt_step5(struct fmt_state *s, uint8_t b)
{
	uint64_t x = s->acc[(b + 5) & 7] ^ ((uint64_t)b << 46);
	switch (b % 10) {
	case 0: x = x * 35ULL + 5; break;
	case 1: x = x * 37ULL + 36; break;
	case 2: x = x * 39ULL + 67; break;
	case 3: x = x * 41ULL + 98; break;
	case 4: x = x * 43ULL + 129; break;
	case 5: x = x * 45ULL + 160; break;
	case 6: x = x * 47ULL + 191; break;
	case 7: x = x * 49ULL + 222; break;
	case 8: x = x * 51ULL + 253; break;
	case 9: x = x * 53ULL + 284; break;
	default: x ^= x >> 13; break;
	}
	for (unsigned j = 0; j < 8; j++)
		x = (x << 5 | x >> 59) + j * 12ULL;
	s->acc[(b + 5) & 7] = x;
	s->round++;
	return x;
}

uint64_t fmt_run(const uint8_t *data, size_t len, uint64_t seed)
{
	struct fmt_state s = {{seed}, 0};
	uint64_t r = 0;

	for (size_t i = 0; i < len; i++) {
		switch (i % 6) {
		case 0: r += fmt_step0(&s, data[i]); break;
		case 1: r += fmt_step1(&s, data[i]); break;
		case 2: r += fmt_step2(&s, data[i]); break;
		case 3: r += fmt_step3(&s, data[i]); break;
		case 4: r += fmt_step4(&s, data[i]); break;
		case 5: r += fmt_step5(&s, data[i]); break;
		}
	}
	return r ^ s.round;
}
