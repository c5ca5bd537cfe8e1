// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* utf8: arithmetic enough to give the compiler some work; the result is checked by main. */
#include "minibuild.h"

struct utf8_state {
	uint64_t acc[8];
	uint32_t round;
};

static uint64_t utf8_step0(struct utf8_state *s, uint8_t b)
{
	uint64_t x = s->acc[(b + 0) & 7] ^ ((uint64_t)b << 26);
	switch (b % 5) {
	case 0: x = x * 55ULL + 0; break;
	case 1: x = x * 57ULL + 31; break;
	case 2: x = x * 59ULL + 62; break;
	case 3: x = x * 61ULL + 93; break;
	case 4: x = x * 63ULL + 124; break;
	default: x ^= x >> 13; break;
	}
	for (unsigned j = 0; j < 3; j++)
		x = (x << 5 | x >> 59) + j * 27ULL;
	s->acc[(b + 0) & 7] = x;
	s->round++;
	return x;
}

static uint64_t utf8_step1(struct utf8_state *s, uint8_t b)
{
	uint64_t x = s->acc[(b + 1) & 7] ^ ((uint64_t)b << 33);
	switch (b % 6) {
	case 0: x = x * 57ULL + 1; break;
	case 1: x = x * 59ULL + 32; break;
	case 2: x = x * 61ULL + 63; break;
	case 3: x = x * 63ULL + 94; break;
	case 4: x = x * 65ULL + 125; break;
	case 5: x = x * 67ULL + 156; break;
	default: x ^= x >> 13; break;
	}
	for (unsigned j = 0; j < 4; j++)
		x = (x << 5 | x >> 59) + j * 27ULL;
	s->acc[(b + 1) & 7] = x;
	s->round++;
	return x;
}

static uint64_t utf8_step2(struct utf8_state *s, uint8_t b)
{
	uint64_t x = s->acc[(b + 2) & 7] ^ ((uint64_t)b << 40);
	switch (b % 7) {
	case 0: x = x * 59ULL + 2; break;
	case 1: x = x * 61ULL + 33; break;
	case 2: x = x * 63ULL + 64; break;
	case 3: x = x * 65ULL + 95; break;
	case 4: x = x * 67ULL + 126; break;
	case 5: x = x * 69ULL + 157; break;
	case 6: x = x * 71ULL + 188; break;
	default: x ^= x >> 13; break;
	}
	for (unsigned j = 0; j < 5; j++)
		x = (x << 5 | x >> 59) + j * 27ULL;
	s->acc[(b + 2) & 7] = x;
	s->round++;
	return x;
}

static uint64_t utf8_step3(struct utf8_state *s, uint8_t b)
{
	uint64_t x = s->acc[(b + 3) & 7] ^ ((uint64_t)b << 47);
	switch (b % 8) {
	case 0: x = x * 61ULL + 3; break;
	case 1: x = x * 63ULL + 34; break;
	case 2: x = x * 65ULL + 65; break;
	case 3: x = x * 67ULL + 96; break;
	case 4: x = x * 69ULL + 127; break;
	case 5: x = x * 71ULL + 158; break;
	case 6: x = x * 73ULL + 189; break;
	case 7: x = x * 75ULL + 220; break;
	default: x ^= x >> 13; break;
	}
	for (unsigned j = 0; j < 6; j++)
		x = (x << 5 | x >> 59) + j * 27ULL;
	s->acc[(b + 3) & 7] = x;
	s->round++;
	return x;
}

static uint64_t utf8_step4(struct utf8_state *s, uint8_t b)
{
	uint64_t x = s->acc[(b + 4) & 7] ^ ((uint64_t)b << 54);
	switch (b % 9) {
	case 0: x = x * 63ULL + 4; break;
	case 1: x = x * 65ULL + 35; break;
	case 2: x = x * 67ULL + 66; break;
	case 3: x = x * 69ULL + 97; break;
	case 4: x = x * 71ULL + 128; break;
	case 5: x = x * 73ULL + 159; break;
	case 6: x = x * 75ULL + 190; break;
	case 7: x = x * 77ULL + 221; break;
	case 8: x = x * 79ULL + 252; break;
	default: x ^= x >> 13; break;
	}
	for (unsigned j = 0; j < 7; j++)
		x = (x << 5 | x >> 59) + j * 27ULL;
	s->acc[(b + 4) & 7] = x;
	s->round++;
	return x;
}

static uint64_t utf8_step5(struct utf8_state *s, uint8_t b)
{
	uint64_t x = s->acc[(b + 5) & 7] ^ ((uint64_t)b << 5);
	switch (b % 10) {
	case 0: x = x * 65ULL + 5; break;
	case 1: x = x * 67ULL + 36; break;
	case 2: x = x * 69ULL + 67; break;
	case 3: x = x * 71ULL + 98; break;
	case 4: x = x * 73ULL + 129; break;
	case 5: x = x * 75ULL + 160; break;
	case 6: x = x * 77ULL + 191; break;
	case 7: x = x * 79ULL + 222; break;
	case 8: x = x * 81ULL + 253; break;
	case 9: x = x * 83ULL + 284; break;
	default: x ^= x >> 13; break;
	}
	for (unsigned j = 0; j < 8; j++)
		x = (x << 5 | x >> 59) + j * 27ULL;
	s->acc[(b + 5) & 7] = x;
	s->round++;
	return x;
}

uint64_t utf8_run(const uint8_t *data, size_t len, uint64_t seed)
{
	struct utf8_state s = {{seed}, 0};
	uint64_t r = 0;

	for (size_t i = 0; i < len; i++) {
		switch (i % 6) {
		case 0: r += utf8_step0(&s, data[i]); break;
		case 1: r += utf8_step1(&s, data[i]); break;
		case 2: r += utf8_step2(&s, data[i]); break;
		case 3: r += utf8_step3(&s, data[i]); break;
		case 4: r += utf8_step4(&s, data[i]); break;
		case 5: r += utf8_step5(&s, data[i]); break;
		}
	}
	return r ^ s.round;
}
