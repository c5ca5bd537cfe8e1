// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * fxsamplerd: owns the host's one sampler and lends it, one session at a time,
 * to clients on a Unix socket (docs/PROTOCOL.md), streaming the FXT bytes back
 * to them; optionally keeps a low-rate host-wide capture in rotating files
 * when nobody else is sampling.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "capture/guard.h"
#include "capture/kfeatures.h"
#include "cli/client.h"
#include "service/daemon.h"

#ifndef FXS_VERSION
#define FXS_VERSION "unknown"
#endif

static void usage(FILE *f)
{
	fprintf(f,
		"usage: fxsamplerd [--socket PATH] [--config FILE] [-v]\n"
		"\n"
		"The fxsampler daemon: owns the host's sampler and lends it, one session at a\n"
		"time, to clients (`fxsampler record`, `fxsampler status`) on a Unix socket,\n"
		"streaming each capture back to its client as FXT; the client writes the file.\n"
		"Runs in the foreground and logs to stderr (journald level prefixes under\n"
		"systemd); Type=notify and socket activation are supported.\n"
		"\n"
		"  -s, --socket PATH  listen on PATH (default: $FXSAMPLER_SOCKET, else\n"
		"                     the config's socket, else %s)\n"
		"  -c, --config FILE  configuration (default: %s)\n"
		"  -v, --verbose      debug output, libbpf's included\n"
		"      --allow-unsafe-kernel  start on a kernel in the perf-interrupt lockup\n"
		"                     range (5.19 to 6.3.9) that has the fix backported\n"
		"  -h, --help         this text\n"
		"  -V, --version      the version\n"
		"\n"
		"Who may do what (from the peer's SO_PEERCRED):\n"
		"  root may sample anything; another user only processes that run as that\n"
		"  user (real, effective and saved uid, no capability beyond the client's),\n"
		"  checked again for every sample and before every read of their /proc files:\n"
		"  a target that execs a set-user-ID or file-capability program is dropped,\n"
		"  and the client told. Host-wide sampling needs root or the group '%s'.\n"
		"  One session at a time: another client is told who holds it.\n"
		"  A client that disconnects has its session stopped and destroyed.\n"
		"\n"
		"Configuration (key = value, # comments):\n"
		"  socket = PATH            continuous = yes|no   continuous_frequency = 19\n"
		"  directory = %s      max_file_size = 64M\n"
		"  max_file_age = 1h        max_total_size = 1G   buffer_size = 256K\n"
		"  max_frames = 255         max_clients = 16      max_clients_per_uid = 4\n"
		"  handshake_timeout = 5s   idle_timeout = 60s    client_read_timeout = 30s\n"
		"  max_session_length = 1h (users')  max_root_session_length = 0 (no limit)\n"
		"  http_listen = (off)      http_token_file = (none)\n"
		"  http_max_scrapes = 4     http_max_seconds = 60     continuous_off_cpu = no\n"
		"Root's connections are not counted against max_clients: root can always\n"
		"connect. A session whose client reads nothing for client_read_timeout is\n"
		"stopped, and its client told why. Root takes the sampler from a client's\n"
		"session with 'fxsampler record --preempt': that client gets a complete file.\n"
		"Continuous mode samples the whole host into rotating complete .fxt files in\n"
		"directory, paused while a client holds the sampler; max_total_size must be at\n"
		"least twice max_file_size. Files a killed daemon left are salvaged at start.\n"
		"http_listen (ADDRESS:PORT or a unix socket path) serves GET\n"
		"/debug/pprof/profile?seconds=N (Parca, Grafana Alloy, go tool pprof): the whole\n"
		"host's samples over the next N seconds as Go's CPU profile, read from the host\n"
		"capture (continuous mode's, else one started while scrapes need it). Any\n"
		"address but loopback needs http_token_file (Authorization: Bearer).\n"
		"/debug/pprof/offcpu serves the waits when continuous_off_cpu = yes.\n"
		"\n"
		"Signals: SIGTERM/SIGINT finish the current capture (its client gets a complete\n"
		"file) and exit; SIGHUP reloads the configuration (not the socket).\n"
		"Units: fxsamplerd.socket, fxsamplerd.service; the protocol: docs/PROTOCOL.md.\n"
		"Exit status: 0 success, 1 runtime failure, 2 usage error.\n",
		DAEMON_DEFAULT_SOCKET, DAEMON_DEFAULT_CONFIG, AUTHZ_GROUP, DAEMON_DEFAULT_DIR);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"socket", required_argument, NULL, 's'},
		{"config", required_argument, NULL, 'c'},
		{"verbose", no_argument, NULL, 'v'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{"allow-unsafe-kernel", no_argument, NULL, 'U'},
		{},
	};
	const char *socket_opt = NULL, *env;
	bool allow_unsafe_kernel = false;
	sigset_t waitmask;
	struct daemon *d;
	char errbuf[512];
	int opt, err;

	log_journal = getenv("JOURNAL_STREAM") != NULL;
	d = calloc(1, sizeof(*d));
	if (!d) {
		fprintf(stderr, "fxsamplerd: out of memory\n");
		return EXIT_FAILURE;
	}
	d->listen_fd = -1;
	d->epfd = -1;
	d->sess.file.fd = -1;
	d->config_path = DAEMON_DEFAULT_CONFIG;
	while ((opt = getopt_long(argc, argv, "s:c:vhV", longopts, NULL)) != -1) {
		switch (opt) {
		case 'U':
			allow_unsafe_kernel = true;
			break;
		case 's':
			socket_opt = optarg;
			break;
		case 'c':
			d->config_path = optarg;
			d->config_given = true;
			break;
		case 'v':
			log_verbose = true;
			break;
		case 'h':
			usage(stdout);
			free(d);
			return EXIT_SUCCESS;
		case 'V':
			printf("fxsamplerd %s (protocol %d)\n", FXS_VERSION, FXS_PROTO_VERSION);
			free(d);
			return EXIT_SUCCESS;
		default:
			usage(stderr);
			free(d);
			return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "fxsamplerd: unexpected argument '%s'\n", argv[optind]);
		free(d);
		return 2;
	}
	/* Refuse to start where no capture could be made safely: say so once, at start. */
	if (guard_check_host(allow_unsafe_kernel, errbuf, sizeof(errbuf))) {
		log_err("%s", errbuf);
		free(d);
		return EXIT_FAILURE;
	}
	err = daemon_config_load(d->config_path, d->config_given, &d->cfg, errbuf, sizeof(errbuf));
	if (err) {
		log_err("%s", errbuf);
		free(d);
		/* a configuration that makes no sense is a usage error */
		return err == -EINVAL ? 2 : EXIT_FAILURE;
	}
	env = getenv(CLIENT_SOCKET_ENV);
	if (!socket_opt && env && *env)
		socket_opt = env;
	if (socket_opt && (socket_opt[0] != '/' || strlen(socket_opt) >= DAEMON_SOCKET_MAX)) {
		fprintf(stderr, "fxsamplerd: socket path '%s' is not absolute or too long\n",
			socket_opt);
		free(d);
		return 2;
	}
	if (socket_opt) {
		strcpy(d->cfg.socket_path, socket_opt);
		d->socket_given = true;
	}
	strcpy(d->socket_path, d->cfg.socket_path);
	libbpf_set_print(log_libbpf_print);
	if (kfeatures_check(errbuf, sizeof(errbuf))) {
		log_err("%s", errbuf);
		free(d);
		return EXIT_FAILURE;
	}
	daemon_load_policy(d);

	daemon_signals(&waitmask);

	err = daemon_listen(d);
	if (err) {
		if (err != -EADDRINUSE)
			log_err("cannot listen on '%s': %s", d->socket_path, strerror(-err));
		goto out;
	}
	d->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (d->epfd < 0) {
		err = -errno;
		log_err("epoll_create1: %s", strerror(-err));
		goto out;
	}
	err = http_open(d);
	if (err)
		goto out;
	err = daemon_run(d, &waitmask);
	if (err)
		log_err("event loop failed: %s", strerror(-err));
out:
	http_close(d);
	if (d->own_socket)
		unlink(d->socket_path);
	if (d->listen_fd >= 0)
		close(d->listen_fd);
	if (d->epfd >= 0)
		close(d->epfd);
	free(d);
	return err ? EXIT_FAILURE : EXIT_SUCCESS;
}
