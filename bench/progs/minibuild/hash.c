// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* hash: arithmetic enough to give the compiler some work; the result is checked by main. */
#include "minibuild.h"

struct hash_state {
	uint64_t acc[8];
	uint32_t round;
};

static uint64_t hash_step0(struct hash_state *s, uint8_t b)
{
	uint64_t x = s->acc[(b + 0) & 7] ^ ((uint64_t)b << 2);
	switch (b % 5) {
	case 0: x = x * 7ULL + 0; break;
	case 1: x = x * 9ULL + 31; break;
	case 2: x = x * 11ULL + 62; break;
	case 3: x = x * 13ULL + 93; break;
	case 4: x = x * 15ULL + 124; break;
	default: x ^= x >> 13; break;
	}
	for (unsigned j = 0; j < 3; j++)
		x = (x << 5 | x >> 59) + j * 3ULL;
	s->acc[(b + 0) & 7] = x;
	s->round++;
	return x;
}

static uint64_t hash_step1(struct hash_state *s, uint8_t b)
{
	uint64_t x = s->acc[(b + 1) & 7] ^ ((uint64_t)b << 9);
	switch (b % 6) {
	case 0: x = x * 9ULL + 1; break;
	case 1: x = x * 11ULL + 32; break;
	case 2: x = x * 13ULL + 63; break;
	case 3: x = x * 15ULL + 94; break;
	case 4: x = x * 17ULL + 125; break;
	case 5: x = x * 19ULL + 156; break;
	default: x ^= x >> 13; break;
	}
	for (unsigned j = 0; j < 4; j++)
		x = (x << 5 | x >> 59) + j * 3ULL;
	s->acc[(b + 1) & 7] = x;
	s->round++;
	return x;
}

static uint64_t hash_step2(struct hash_state *s, uint8_t b)
{
	uint64_t x = s->acc[(b + 2) & 7] ^ ((uint64_t)b << 16);
	switch (b % 7) {
	case 0: x = x * 11ULL + 2; break;
	case 1: x = x * 13ULL + 33; break;
	case 2: x = x * 15ULL + 64; break;
	case 3: x = x * 17ULL + 95; break;
	case 4: x = x * 19ULL + 126; break;
	case 5: x = x * 21ULL + 157; break;
	case 6: x = x * 23ULL + 188; break;
	default: x ^= x >> 13; break;
	}
	for (unsigned j = 0; j < 5; j++)
		x = (x << 5 | x >> 59) + j * 3ULL;
	s->acc[(b + 2) & 7] = x;
	s->round++;
	return x;
}

static uint64_t hash_step3(struct hash_state *s, uint8_t b)
{
	uint64_t x = s->acc[(b + 3) & 7] ^ ((uint64_t)b << 23);
	switch (b % 8) {
	case 0: x = x * 13ULL + 3; break;
	case 1: x = x * 15ULL + 34; break;
	case 2: x = x * 17ULL + 65; break;
	case 3: x = x * 19ULL + 96; break;
	case 4: x = x * 21ULL + 127; break;
	case 5: x = x * 23ULL + 158; break;
	case 6: x = x * 25ULL + 189; break;
	case 7: x = x * 27ULL + 220; break;
	default: x ^= x >> 13; break;
	}
	for (unsigned j = 0; j < 6; j++)
		x = (x << 5 | x >> 59) + j * 3ULL;
	s->acc[(b + 3) & 7] = x;
	s->round++;
	return x;
}

static uint64_t hash_step4(struct hash_state *s, uint8_t b)
{
	uint64_t x = s->acc[(b + 4) & 7] ^ ((uint64_t)b << 30);
	switch (b % 9) {
	case 0: x = x * 15ULL + 4; break;
	case 1: x = x * 17ULL + 35; break;
	case 2: x = x * 19ULL + 66; break;
	case 3: x = x * 21ULL + 97; break;
	case 4: x = x * 23ULL + 128; break;
	case 5: x = x * 25ULL + 159; break;
	case 6: x = x * 27ULL + 190; break;
	case 7: x = x * 29ULL + 221; break;
	case 8: x = x * 31ULL + 252; break;
	default: x ^= x >> 13; break;
	}
	for (unsigned j = 0; j < 7; j++)
		x = (x << 5 | x >> 59) + j * 3ULL;
	s->acc[(b + 4) & 7] = x;
	s->round++;
	return x;
}

static uint64_t hash_step5(struct hash_state *s, uint8_t b)
{
	uint64_t x = s->acc[(b + 5) & 7] ^ ((uint64_t)b << 37);
	switch (b % 10) {
	case 0: x = x * 17ULL + 5; break;
	case 1: x = x * 19ULL + 36; break;
	case 2: x = x * 21ULL + 67; break;
	case 3: x = x * 23ULL + 98; break;
	case 4: x = x * 25ULL + 129; break;
	case 5: x = x * 27ULL + 160; break;
	case 6: x = x * 29ULL + 191; break;
	case 7: x = x * 31ULL + 222; break;
	case 8: x = x * 33ULL + 253; break;
	case 9: x = x * 35ULL + 284; break;
	default: x ^= x >> 13; break;
	}
	for (unsigned j = 0; j < 8; j++)
		x = (x << 5 | x >> 59) + j * 3ULL;
	s->acc[(b + 5) & 7] = x;
	s->round++;
	return x;
}

uint64_t hash_run(const uint8_t *data, size_t len, uint64_t seed)
{
	struct hash_state s = {{seed}, 0};
	uint64_t r = 0;

	for (size_t i = 0; i < len; i++) {
		switch (i % 6) {
		case 0: r += hash_step0(&s, data[i]); break;
		case 1: r += hash_step1(&s, data[i]); break;
		case 2: r += hash_step2(&s, data[i]); break;
		case 3: r += hash_step3(&s, data[i]); break;
		case 4: r += hash_step4(&s, data[i]); break;
		case 5: r += hash_step5(&s, data[i]); break;
		}
	}
	return r ^ s.round;
}
