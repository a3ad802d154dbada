/*
 * door.h: the API's front door (door.c): accepts connections and hands each
 * to libmicrohttpd once its request head has arrived and is well formed.
 */
#ifndef DOOR_H
#define DOOR_H

#include <sys/socket.h>
#include <microhttpd.h>

int		 door_start(struct MHD_Daemon *, const struct sockaddr *,
		    socklen_t, int header_timeout, int max_conns);
void		 door_stop(void);
const char	*door_head_invalid(const char *head, size_t len, int *status);

#endif
