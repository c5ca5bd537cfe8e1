/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The script that makes report's flame graph interactive (report_svg.c):
 * a whole <script> element to write into the SVG after its frames.
 */
#ifndef FXS_DAEMON_REPORT_SVG_H
#define FXS_DAEMON_REPORT_SVG_H

extern const char report_svg_script[];

#endif /* FXS_DAEMON_REPORT_SVG_H */
