/*
 * Preloaded into the process of TensorZero's embedded HTTP gateway, whose
 * listener binds 127.0.0.1 on a port of its own choosing (port 0) with no
 * setting to name one: the first bind of an IPv4 socket to port 0 on
 * loopback takes GATEWAYBENCH_BIND_PORT instead, so the gateway itself
 * listens where the plan says, with no proxy in front of it. Every other
 * bind passes through unchanged.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dlfcn.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/socket.h>

int bind(int fd, const struct sockaddr *addr, socklen_t len) {
	static int (*real)(int, const struct sockaddr *, socklen_t);
	static atomic_int taken;
	if (!real)
		real = (int (*)(int, const struct sockaddr *, socklen_t))dlsym(RTLD_NEXT, "bind");
	const char *port = getenv("GATEWAYBENCH_BIND_PORT");
	if (port && addr && addr->sa_family == AF_INET && len >= sizeof(struct sockaddr_in)) {
		struct sockaddr_in in = *(const struct sockaddr_in *)addr;
		if (in.sin_port == 0 && in.sin_addr.s_addr == htonl(INADDR_LOOPBACK) && !atomic_exchange(&taken, 1)) {
			in.sin_port = htons((unsigned short)atoi(port));
			return real(fd, (const struct sockaddr *)&in, sizeof in);
		}
	}
	return real(fd, addr, len);
}
