/* Shared helpers for the notary unit tests (header-only; not a test itself):
 * a fixture PKI in a temp dir (serve/pki), PEM -> DER, and a tiny in-process
 * TLS server thread that answers each connection with a canned response. */
#ifndef TB_TEST_NOTARY_UTIL_H
#define TB_TEST_NOTARY_UTIL_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/pem.h>
#include <openssl/ssl.h>

#include "base/buf.h"
#include "serve/pki.h"

typedef struct test_pki {
    char dir[64];
    char ca[128], cert[128], key[128];
} test_pki;

static inline int test_pki_make(test_pki *p)
{
    tb_err err;
    snprintf(p->dir, sizeof p->dir, "/tmp/tb-ntest-XXXXXX");
    if (!mkdtemp(p->dir) || tb_pki_generate(p->dir, &err) < 0)
        return -1;
    snprintf(p->ca, sizeof p->ca, "%s/%s", p->dir, TB_PKI_CA_CERT);
    snprintf(p->cert, sizeof p->cert, "%s/%s", p->dir, TB_PKI_SERVER_CERT);
    snprintf(p->key, sizeof p->key, "%s/%s", p->dir, TB_PKI_SERVER_KEY);
    return 0;
}

static inline void test_pki_remove(test_pki *p)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", p->dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", p->dir);
}

/* DER of the first certificate in a PEM file, appended to out. */
static inline int test_pem_to_der(const char *path, tb_buf *out)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    X509 *x = PEM_read_X509(f, NULL, NULL, NULL);
    fclose(f);
    if (!x)
        return -1;
    unsigned char *der = NULL;
    int n = i2d_X509(x, &der);
    X509_free(x);
    if (n <= 0)
        return -1;
    tb_buf_append(out, der, (size_t)n);
    OPENSSL_free(der);
    return 0;
}

/* A TLS server on 127.0.0.1:<port> answering `connections` connections with
 * `response`. Set before test_tls_start's thread accepts (i.e. use
 * test_tls_start_mode): trickle_ms > 0 sends the response one byte every
 * trickle_ms (a target that never finishes within a deadline); no_handshake
 * accepts and then says nothing. Writes to a peer that left fail quietly
 * (MSG_NOSIGNAL-like: SIGPIPE is ignored by the tests that use these). */
typedef struct test_tls_server {
    SSL_CTX *ctx;
    int lfd;
    uint16_t port;
    const char *response;
    int connections;
    int trickle_ms;
    int no_handshake;
    pthread_t thread;
} test_tls_server;

static void *test_tls_loop(void *arg)
{
    test_tls_server *s = arg;
    for (int i = 0; i < s->connections; i++) {
        int fd = accept(s->lfd, NULL, NULL);
        if (fd < 0)
            break;
        if (s->no_handshake) {
            char b[512];
            while (recv(fd, b, sizeof b, 0) > 0) /* until the peer gives up */
                ;
            close(fd);
            continue;
        }
        SSL *ssl = SSL_new(s->ctx);
        SSL_set_fd(ssl, fd);
        if (SSL_accept(ssl) == 1) {
            char buf[8192];
            int n = SSL_read(ssl, buf, sizeof buf); /* one read: the test requests are small */
            if (n > 0 && s->trickle_ms > 0) {
                for (const char *p = s->response; *p; p++) {
                    if (SSL_write(ssl, p, 1) != 1)
                        break;
                    usleep((useconds_t)s->trickle_ms * 1000);
                }
            } else if (n > 0) {
                SSL_write(ssl, s->response, (int)strlen(s->response));
            }
            SSL_shutdown(ssl);
        }
        SSL_free(ssl);
        close(fd);
    }
    return NULL;
}

static inline int test_tls_start_mode(test_tls_server *s, const test_pki *p, const char *response,
                                      int connections, int trickle_ms, int no_handshake)
{
    memset(s, 0, sizeof *s);
    s->trickle_ms = trickle_ms;
    s->no_handshake = no_handshake;
    s->ctx = SSL_CTX_new(TLS_server_method());
    if (!s->ctx || SSL_CTX_use_certificate_chain_file(s->ctx, p->cert) != 1 ||
        SSL_CTX_use_PrivateKey_file(s->ctx, p->key, SSL_FILETYPE_PEM) != 1)
        return -1;
    s->lfd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof a;
    if (bind(s->lfd, (struct sockaddr *)&a, sizeof a) < 0 || listen(s->lfd, 64) < 0 ||
        getsockname(s->lfd, (struct sockaddr *)&a, &al) < 0)
        return -1;
    s->port = ntohs(a.sin_port);
    s->response = response;
    s->connections = connections;
    return pthread_create(&s->thread, NULL, test_tls_loop, s) ? -1 : 0;
}

static inline int test_tls_start(test_tls_server *s, const test_pki *p, const char *response,
                                 int connections)
{
    return test_tls_start_mode(s, p, response, connections, 0, 0);
}

static inline void test_tls_stop(test_tls_server *s)
{
    shutdown(s->lfd, SHUT_RDWR);
    pthread_join(s->thread, NULL);
    close(s->lfd);
    SSL_CTX_free(s->ctx);
}

#endif
