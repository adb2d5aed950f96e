#ifndef FRAMEFLOW_CMICROHTTPD_SHIM_H
#define FRAMEFLOW_CMICROHTTPD_SHIM_H
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>

/* Swift cannot call C variadic functions: these fixed-argument wrappers call libmicrohttpd's
   variadic ones (MHD_start_daemon, MHD_get_daemon_info, MHD_get_connection_info). */

/* MHD_start_daemon with its options given as an MHD_OPTION_END-terminated array. */
static inline struct MHD_Daemon *frameflow_mhd_start(unsigned int flags, uint16_t port, MHD_AccessHandlerCallback handler,
                                                     void *handler_cls, struct MHD_OptionItem *options) {
    return MHD_start_daemon(flags, port, NULL, NULL, handler, handler_cls, MHD_OPTION_ARRAY, options, MHD_OPTION_END);
}

/* The port the daemon is bound to (0 if unknown). */
static inline uint16_t frameflow_mhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

/* The client's address of a connection, or NULL. */
static inline const struct sockaddr *frameflow_mhd_client_address(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info == NULL ? NULL : info->client_addr;
}
#endif
