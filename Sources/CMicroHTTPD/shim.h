#ifndef PASSCONSOLE_CMICROHTTPD_SHIM_H
#define PASSCONSOLE_CMICROHTTPD_SHIM_H

// Swift cannot call libmicrohttpd's variadic MHD_start_daemon, nor import its macros:
// these small wrappers build the option array in C and expose the constants Swift needs.

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <malloc.h>
#include <microhttpd.h>

#if MHD_VERSION < 0x00097002
typedef int pc_mhd_result;
#else
typedef enum MHD_Result pc_mhd_result;
#endif

static const uint64_t pc_size_unknown = MHD_SIZE_UNKNOWN;
static const ssize_t pc_content_reader_end_of_stream = MHD_CONTENT_READER_END_OF_STREAM;
static const ssize_t pc_content_reader_end_with_error = MHD_CONTENT_READER_END_WITH_ERROR;

typedef pc_mhd_result (*pc_access_handler)(void *cls, struct MHD_Connection *connection, const char *url,
                                           const char *method, const char *version, const char *upload_data,
                                           size_t *upload_data_size, void **con_cls);
typedef void (*pc_completed_handler)(void *cls, struct MHD_Connection *connection, void **con_cls,
                                     enum MHD_RequestTerminationCode toe);

typedef void *(*pc_uri_log_handler)(void *cls, const char *uri, struct MHD_Connection *connection);
/// Hears each message libmicrohttpd logs, formatted, on the thread that logs it.
typedef void (*pc_log_handler)(void *cls, const char *message);

/// The logger's target: a handler and its `cls` (one per daemon, kept for the life of the process like the TLS copies).
struct pc_log_target {
    pc_log_handler handler;
    void *cls;
};

/// libmicrohttpd's logger: writes the message to standard error as its own logger does, then hands it to the target.
static inline void pc_log_trampoline(void *cls, const char *format, va_list arguments) {
    char message[512];
    vsnprintf(message, sizeof message, format, arguments);
    fputs(message, stderr);
    const struct pc_log_target *target = (const struct pc_log_target *)cls;
    if (target && target->handler) target->handler(target->cls, message);
}
typedef pc_mhd_result (*pc_accept_policy)(void *cls, const struct sockaddr *addr, socklen_t addrlen);
typedef void (*pc_notify_connection)(void *cls, struct MHD_Connection *connection, void **socket_context,
                                     enum MHD_ConnectionNotificationCode toe);

/// Starts a daemon bound to `bind_address:port` (IPv4 dotted quad). Returns NULL on failure.
///
/// `uri_log` sees each request's raw target (before libmicrohttpd decodes it) and returns the request's context;
/// `accept_policy` may refuse a connection by its peer address; `notify` hears of every connection opened and closed;
/// `log` hears every message libmicrohttpd logs (on the thread handling the connection it is about).
static inline struct MHD_Daemon *pc_start_daemon(unsigned int flags, uint16_t port, const char *bind_address,
                                                 unsigned int thread_pool_size, unsigned int connection_limit,
                                                 unsigned int connection_timeout, size_t connection_memory,
                                                 pc_access_handler handler,
                                                 void *handler_cls, pc_completed_handler completed,
                                                 void *completed_cls, pc_uri_log_handler uri_log,
                                                 pc_accept_policy accept_policy, pc_notify_connection notify,
                                                 pc_log_handler log,
                                                 const char *tls_key_pem, const char *tls_cert_pem) {
    struct sockaddr_in addr;
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    if (inet_pton(AF_INET, bind_address, &addr.sin_addr) != 1) return NULL;
    struct MHD_OptionItem ops[16];
    int i = 0;
    ops[i++] = (struct MHD_OptionItem){MHD_OPTION_SOCK_ADDR, 0, &addr};
    ops[i++] = (struct MHD_OptionItem){MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)completed, completed_cls};
    ops[i++] = (struct MHD_OptionItem){MHD_OPTION_CONNECTION_LIMIT, connection_limit, NULL};
    ops[i++] = (struct MHD_OptionItem){MHD_OPTION_CONNECTION_TIMEOUT, connection_timeout, NULL};
    if (uri_log) ops[i++] = (struct MHD_OptionItem){MHD_OPTION_URI_LOG_CALLBACK, (intptr_t)uri_log, handler_cls};
    if (notify) ops[i++] = (struct MHD_OptionItem){MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)notify, handler_cls};
    if (connection_memory > 0) ops[i++] = (struct MHD_OptionItem){MHD_OPTION_CONNECTION_MEMORY_LIMIT, (intptr_t)connection_memory, NULL};
    if (thread_pool_size > 1) ops[i++] = (struct MHD_OptionItem){MHD_OPTION_THREAD_POOL_SIZE, thread_pool_size, NULL};
    if (tls_key_pem && tls_cert_pem) {
        // HTTPS: the PEM texts must outlive the daemon; copies kept for the life of the process (one per TLS server).
        flags |= MHD_USE_TLS;
        ops[i++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_KEY, 0, strdup(tls_key_pem)};
        ops[i++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_CERT, 0, strdup(tls_cert_pem)};
    }
    ops[i++] = (struct MHD_OptionItem){MHD_OPTION_END, 0, NULL};
    if (!log) {
        return MHD_start_daemon(flags, port, (MHD_AcceptPolicyCallback)accept_policy, handler_cls, handler, handler_cls,
                                MHD_OPTION_ARRAY, ops, MHD_OPTION_END);
    }
    struct pc_log_target *target = malloc(sizeof *target);
    if (!target) return NULL;
    target->handler = log;
    target->cls = handler_cls;
    // The logger as the very first option: libmicrohttpd's own logger prints whatever comes before it.
    return MHD_start_daemon(flags, port, (MHD_AcceptPolicyCallback)accept_policy, handler_cls, handler, handler_cls,
                            MHD_OPTION_EXTERNAL_LOGGER, pc_log_trampoline, target, MHD_OPTION_ARRAY, ops, MHD_OPTION_END);
}

/// Whether this libmicrohttpd was built with TLS (HTTPS) support.
static inline int pc_tls_supported(void) { return MHD_is_feature_supported(MHD_FEATURE_TLS) == MHD_YES; }

/// The connection's socket (-1 when unknown).
static inline int pc_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info ? (int)info->connect_fd : -1;
}

/// Whether a notification is the connection's start (1) or end (0).
static inline int pc_notify_is_start(enum MHD_ConnectionNotificationCode code) {
    return code == MHD_CONNECTION_NOTIFY_STARTED;
}

/// The port the daemon listens on (useful after binding port 0).
static inline uint16_t pc_daemon_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info ? info->port : 0;
}

/// Number of open connections.
static inline unsigned int pc_daemon_connections(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
    return info ? info->num_connections : 0;
}

/// A socket address's IP as text into `buffer` (empty when unknown).
static inline void pc_address_text(const struct sockaddr *sa, char *buffer, size_t size) {
    buffer[0] = 0;
    if (!sa) return;
    if (sa->sa_family == AF_INET && size >= 16) {
        // By hand: glibc's inet_ntop formats IPv4 with sprintf, a visible cost on every request.
        const unsigned char *b = (const unsigned char *)&((const struct sockaddr_in *)sa)->sin_addr;
        char *p = buffer;
        for (int i = 0; i < 4; i++) {
            unsigned v = b[i];
            if (v >= 100) *p++ = (char)('0' + v / 100);
            if (v >= 10) *p++ = (char)('0' + v / 10 % 10);
            *p++ = (char)('0' + v % 10);
            *p++ = i < 3 ? '.' : 0;
        }
    }
    else if (sa->sa_family == AF_INET6) inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, buffer, size);
}

/// The peer's IPv4/IPv6 address as text into `buffer` (empty when unknown).
static inline void pc_connection_peer(struct MHD_Connection *connection, char *buffer, size_t size) {
    buffer[0] = 0;
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (!info || !info->client_addr) return;
    pc_address_text(info->client_addr, buffer, size);
}

/// Returns freed heap memory to the system (after a large request body).
static inline void pc_release_free_memory(void) { malloc_trim(0); }

/// Large buffers (request bodies) get pages of their own, returned to the system when freed: glibc otherwise
/// raises its mmap threshold after the first such free, and later bodies stay in the heap after they are freed.
static inline void pc_fix_mmap_threshold(int bytes) { mallopt(M_MMAP_THRESHOLD, bytes); }

/// Free memory a heap keeps at its top before handing it back to the system. Fixing the mmap threshold leaves this at
/// glibc's 128 KiB, so each thread's heap gave back and faulted in again (zeroed) the pages of every answer of a few
/// dozen KiB it built; blocks of `pc_fix_mmap_threshold`'s size and more have pages of their own anyway.
static inline void pc_set_trim_threshold(int bytes) { mallopt(M_TRIM_THRESHOLD, bytes); }

/// Sets this connection's inactivity timeout in seconds (0 = none), e.g. for long-lived event streams.
static inline void pc_connection_set_timeout(struct MHD_Connection *connection, unsigned int seconds) {
    MHD_set_connection_option(connection, MHD_CONNECTION_OPTION_TIMEOUT, seconds);
}

#endif
