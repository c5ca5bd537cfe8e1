// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* graph: arithmetic enough to give the compiler some work; the result is checked by main. */
#include "minibuild.h"

struct graph_state {
	uint64_t acc[8];
	uint32_t round;
};

static uint64_t graph_step0(struct graph_state *s, uint8_t b)
{
	uint64_t x = s->acc[(b + 0) & 7] ^ ((uint64_t)b << 23);
	switch (b % 5) {
	case 0: x = x * 49ULL + 0; break;
	case 1: x = x * 51ULL + 31; break;
	case 2: x = x * 53ULL + 62; break;
	case 3: x = x * 55ULL + 93; break;
	case 4: x = x * 57ULL + 124; break;
	default: x ^= x >> 13; break;
	}
	for (unsigned j = 0; j < 3; j++)
		x = (x << 5 | x >> 59) + j * 24ULL;
	s->acc[(b + 0) & 7] = x;
	s->round++;
	return x;
}

static uint64_t graph_step1(struct graph_state *s, uint8_t b)
{
	uint64_t x = s->acc[(b + 1) & 7] ^ ((uint64_t)b << 30);
	switch (b % 6) {
	case 0: x = x * 51ULL + 1; break;
	case 1: x = x * 53ULL + 32; break;
	case 2: x = x * 55ULL + 63; break;
	case 3: x = x * 57ULL + 94; break;
	case 4: x = x * 59ULL + 125; break;
	case 5: x = x * 61ULL + 156; break;
	default: x ^= x >> 13; break;
	}
	for (unsigned j = 0; j < 4; j++)
		x = (x << 5 | x >> 59) + j * 24ULL;
	s->acc[(b + 1) & 7] = x;
	s->round++;
	return x;
}

static uint64_t graph_step2(struct graph_state *s, uint8_t b)
{
	uint64_t x = s->acc[(b + 2) & 7] ^ ((uint64_t)b << 37);
	switch (b % 7) {
	case 0: x = x * 53ULL + 2; break;
	case 1: x = x * 55ULL + 33; break;
	case 2: x = x * 57ULL + 64; break;
	case 3: x = x * 59ULL + 95; break;
	case 4: x = x * 61ULL + 126; break;
	case 5: x = x * 63ULL + 157; break;
	case 6: x = x * 65ULL + 188; break;
	default: x ^= x >> 13; break;
	}
	for (unsigned j = 0; j < 5; j++)
		x = (x << 5 | x >> 59) + j * 24ULL;
	s->acc[(b + 2) & 7] = x;
	s->round++;
	return x;
}

static uint64_t graph_step3(struct graph_state *s, uint8_t b)
{
	uint64_t x = s->acc[(b + 3) & 7] ^ ((uint64_t)b << 44);
	switch (b % 8) {
	case 0: x = x * 55ULL + 3; break;
	case 1: x = x * 57ULL + 34; break;
	case 2: x = x * 59ULL + 65; break;
	case 3: x = x * 61ULL + 96; break;
	case 4: x = x * 63ULL + 127; break;
	case 5: x = x * 65ULL + 158; break;
	case 6: x = x * 67ULL + 189; break;
	case 7: x = x * 69ULL + 220; break;
	default: x ^= x >> 13; break;
	}
	for (unsigned j = 0; j < 6; j++)
		x = (x << 5 | x >> 59) + j * 24ULL;
	s->acc[(b + 3) & 7] = x;
	s->round++;
	return x;
}

static uint64_t graph_step4(struct graph_state *s, uint8_t b)
{
	uint64_t x = s->acc[(b + 4) & 7] ^ ((uint64_t)b << 51);
	switch (b % 9) {
	case 0: x = x * 57ULL + 4; break;
	case 1: x = x * 59ULL + 35; break;
	case 2: x = x * 61ULL + 66; break;
	case 3: x = x * 63ULL + 97; break;
	case 4: x = x * 65ULL + 128; break;
	case 5: x = x * 67ULL + 159; break;
	case 6: x = x * 69ULL + 190; break;
	case 7: x = x * 71ULL + 221; break;
	case 8: x = x * 73ULL + 252; break;
	default: x ^= x >> 13; break;
	}
	for (unsigned j = 0; j < 7; j++)
		x = (x << 5 | x >> 59) + j * 24ULL;
	s->acc[(b + 4) & 7] = x;
	s->round++;
	return x;
}

static uint64_t graph_step5(struct graph_state *s, uint8_t b)
{
	uint64_t x = s->acc[(b + 5) & 7] ^ ((uint64_t)b << 2);
	switch (b % 10) {
	case 0: x = x * 59ULL + 5; break;
	case 1: x = x * 61ULL + 36; break;
	case 2: x = x * 63ULL + 67; break;
	case 3: x = x * 65ULL + 98; break;
	case 4: x = x * 67ULL + 129; break;
	case 5: x = x * 69ULL + 160; break;
	case 6: x = x * 71ULL + 191; break;
	case 7: x = x * 73ULL + 222; break;
	case 8: x = x * 75ULL + 253; break;
	case 9: x = x * 77ULL + 284; break;
	default: x ^= x >> 13; break;
	}
	for (unsigned j = 0; j < 8; j++)
		x = (x << 5 | x >> 59) + j * 24ULL;
	s->acc[(b + 5) & 7] = x;
	s->round++;
	return x;
}

uint64_t graph_run(const uint8_t *data, size_t len, uint64_t seed)
{
	struct graph_state s = {{seed}, 0};
	uint64_t r = 0;

	for (size_t i = 0; i < len; i++) {
		switch (i % 6) {
		case 0: r += graph_step0(&s, data[i]); break;
		case 1: r += graph_step1(&s, data[i]); break;
		case 2: r += graph_step2(&s, data[i]); break;
		case 3: r += graph_step3(&s, data[i]); break;
		case 4: r += graph_step4(&s, data[i]); break;
		case 5: r += graph_step5(&s, data[i]); break;
		}
	}
	return r ^ s.round;
}
