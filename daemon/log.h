/*
 * log.h: the logging module every file uses; it depends on nothing of the
 * daemon.
 */
#ifndef LOG_H
#define LOG_H

/* log.c */
void	 log_init(int debug, int verbose);
void	 log_warn(const char *, ...) __attribute__((format(printf, 1, 2)));
void	 log_warnx(const char *, ...) __attribute__((format(printf, 1, 2)));
void	 log_info(const char *, ...) __attribute__((format(printf, 1, 2)));
void	 log_debug(const char *, ...) __attribute__((format(printf, 1, 2)));
void	 fatal(const char *, ...) __attribute__((format(printf, 1, 2), noreturn));
void	 fatalx(const char *, ...) __attribute__((format(printf, 1, 2), noreturn));
int	 error(const char *, ...) __attribute__((format(printf, 1, 2)));

#endif
