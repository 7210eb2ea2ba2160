/* service/src/build_info.h -- the identity of this build, written by
 * cmake/BuildInfo.cmake into the build tree (build_info.c) at every build. */
#ifndef SVC_BUILD_INFO_H
#define SVC_BUILD_INFO_H

/* The git commit of the sources ("unknown" for a build from an archive). */
extern const char aa_build_commit[];
/* 1 when tracked files differed from that commit. */
extern const int aa_build_modified;
/* RFC 3339 UTC: SOURCE_DATE_EPOCH when the build set it, else when the build
 * first saw this commit and state. */
extern const char aa_build_date[];

#endif /* SVC_BUILD_INFO_H */
