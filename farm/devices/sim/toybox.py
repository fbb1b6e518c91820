"""The everyday commands of a simulated phone's shell that report on it and change nothing
— toybox's ``ls``, ``date``, ``id``, ``ps``; ``svc``; ``cmd``; ``dumpsys battery``, ``dumpsys
-l`` and a service the phone does not have — answered as an Android 14 phone answers them,
so that a suite's ``runAdbShell: dumpsys battery | head -3`` (Midscene's own example) reads
what it would on a phone, not an empty success.

Each command is ``name(shell, args) -> (stdout, stderr, status)``; ``shell`` is the
`AndroidShell` (its files, its apps, its screen), read only.
"""

from __future__ import annotations

import time
from typing import Any, Callable

Result = tuple[bytes, bytes, int]

# services a phone's servicemanager has (`dumpsys -l`): one the shell does not answer for
# prints nothing, as a service with nothing to say; any other name is "Can't find service"
SERVICES = ("SurfaceFlinger", "accessibility", "activity", "alarm", "audio", "battery",
            "batteryproperties", "batterystats", "bluetooth_manager", "clipboard",
            "connectivity", "cpuinfo", "device_policy", "display", "gfxinfo", "input",
            "input_method", "jobscheduler", "location", "media_session", "meminfo",
            "netstats", "notification", "package", "power", "procstats", "sensorservice",
            "settings", "statusbar", "telephony.registry", "uimode", "usagestats", "user",
            "vibrator_manager", "wifi", "window")

SYSTEM_PACKAGES = ("android", "com.android.chrome", "com.android.launcher3",
                   "com.android.settings", "com.android.shell", "com.android.systemui",
                   "com.android.adbkeyboard", "com.google.android.inputmethod.latin",
                   "com.google.android.permissioncontroller")

BATTERY = ("Current Battery Service state:\n  AC powered: false\n  USB powered: true\n"
           "  Wireless powered: false\n  Dock powered: false\n  Max charging current: 500000\n"
           "  Max charging voltage: 5000000\n  Charge counter: 4960000\n  status: 2\n"
           "  health: 2\n  present: true\n  level: 100\n  scale: 100\n  voltage: 4350\n"
           "  temperature: 250\n  technology: Li-ion\n")

SHELL_ID = ("uid=2000(shell) gid=2000(shell) groups=2000(shell),1004(input),1007(log),"
            "1011(adb),1015(sdcard_rw),1028(sdcard_r),1078(ext_data_rw),1079(ext_obb_rw),"
            "3001(net_bt_admin),3002(net_bt),3003(inet),3006(net_bw_stats),3009(readproc),"
            "3011(uhid),3012(readtracefs) context=u:r:shell:s0")

ROOT_DIRS = ("acct", "apex", "bin", "bugreports", "cache", "config", "d", "data",
             "data_mirror", "debug_ramdisk", "dev", "etc", "init", "init.environ.rc",
             "linkerconfig", "metadata", "mnt", "odm", "odm_dlkm", "oem", "postinstall",
             "proc", "product", "sdcard", "second_stage_resources", "storage", "sys",
             "system", "system_dlkm", "system_ext", "vendor", "vendor_dlkm")
DIRS = {"/": ROOT_DIRS, "/sdcard": ("Alarms", "Android", "DCIM", "Documents", "Download",
                                     "Movies", "Music", "Notifications", "Pictures",
                                     "Podcasts", "Recordings", "Ringtones"),
        "/data/local/tmp": ()}


def dumpsys(service: str) -> Result:
    """``dumpsys SERVICE`` for what the shell does not model itself: the battery's state, the
    list of services (``-l``), nothing for another service the phone has, and for one it does
    not "Can't find service: NAME" on stderr with status 0 (dumpsys's own)."""
    if service == "battery":
        return BATTERY.encode(), b"", 0
    if service in ("-l", ""):      # (every service's dump, on a phone: its list here)
        return ("Currently running services:\n"
                + "".join(f"  {s}\n" for s in SERVICES)).encode(), b"", 0
    if service in SERVICES:
        return b"", b"", 0
    return b"", f"Can't find service: {service}\n".encode(), 0


def packages(shell: Any, args: list[str]) -> Result:
    """``pm list packages [-3|-s] [FILTER]``: the installed apps and the system's own (the
    browser a web URL opens in, the launcher, the keyboards), ``package:NAME`` a line."""
    apps = set(shell.apps())
    listed = (apps if "-3" in args else set(SYSTEM_PACKAGES) - apps if "-s" in args
              else apps | set(SYSTEM_PACKAGES))
    words = [a for a in args if not a.startswith("-")]
    wanted = sorted(p for p in listed if not words or words[0] in p)
    return "".join(f"package:{p}\n" for p in wanted).encode(), b"", 0


def ls(shell: Any, args: list[str]) -> Result:
    """toybox ``ls [-l…] [PATH…]`` (``-l`` not detailed): the files the shell holds (a dump
    written to /sdcard) and the folders a phone has."""
    paths = [a for a in args if not a.startswith("-")] or ["/"]
    out, err = [], []
    for path in paths:
        names = _listing(shell.files, path)
        if names is None:
            err.append(f"ls: {path}: No such file or directory\n")
        elif len(paths) > 1 and path.rstrip("/") not in shell.files:
            out.append(f"{path}:\n" + "".join(f"{n}\n" for n in names) + "\n")
        else:
            out.append("".join(f"{n}\n" for n in names))
    return "".join(out).encode(), "".join(err).encode(), 1 if err else 0


def _listing(files: dict[str, bytes], path: str) -> list[str] | None:
    """What ``ls PATH`` lists: a file's own path, a folder's names; None: no such path."""
    if path in files:
        return [path]
    folder = path.rstrip("/") or "/"
    inside = sorted({f[len(folder):].lstrip("/").split("/")[0] for f in files
                     if f.startswith(folder.rstrip("/") + "/")})
    if folder not in DIRS and not inside:
        return None
    return sorted(set(DIRS.get(folder, ())) | set(inside))


def date(shell: Any, args: list[str]) -> Result:
    """toybox ``date [+FORMAT]`` in the phone's zone (UTC): ``Sat Dec  6 14:25:01 UTC 2025``."""
    now = time.gmtime()
    fmt = next((a[1:] for a in args if a.startswith("+")), "%a %b %e %H:%M:%S %Z %Y")
    return (time.strftime(fmt.replace("%Z", "UTC"), now) + "\n").encode(), b"", 0


def id_(shell: Any, args: list[str]) -> Result:
    """``id`` as adb's shell user: uid 2000 (``-u``), name ``shell`` (``-un``)."""
    if "-un" in args or ("-u" in args and "-n" in args):
        return b"shell\n", b"", 0
    if "-u" in args or "-g" in args:
        return b"2000\n", b"", 0
    return (SHELL_ID + "\n").encode(), b"", 0


PS_HEADER = "USER           PID  PPID        VSZ    RSS WCHAN            ADDR S NAME"


def ps(shell: Any, args: list[str]) -> Result:
    """toybox ``ps``: the shell's own processes; ``-A`` / ``-e`` every process, each running
    app (in front or behind) with the pid its logcat lines carry; ``ps -p PID`` /
    ``ps NAME`` narrowed."""
    rows = [("root", 1, 0, "init"), ("system", 612, 1, "system_server"),
            ("u0_a132", 1024, 1, "com.android.systemui")]
    rows += [(f"u0_a{150 + i}", shell.log.pid_of(app), 1, app)
             for i, app in enumerate(sorted({*shell.apps(), "com.android.chrome",
                                             "com.android.launcher3"}))
             if shell.screen.running(app)]
    mine = [("shell", 30101, 30099, "sh"), ("shell", 30102, 30101, "ps")]
    every = {"-A", "-e", "-ef"} & set(args)
    names = [a for a in args if not a.startswith("-")]
    pids = [a for a in names if a.isdigit()]
    chosen = (rows + mine) if every or names else mine
    if names:
        chosen = [r for r in chosen if str(r[1]) in pids or r[3] in names]
    lines = [PS_HEADER] + [f"{u:<10}{p:>8}{pp:>6} {10838724:>10} {4096:>6} do_epoll_wait"
                           f"       0 S {n}" for u, p, pp, n in chosen]
    return ("\n".join(lines) + "\n").encode(), b"", 0 if not names or len(lines) > 1 else 1


SVC = ("Available commands:\n    help     Show information about the subcommands\n"
       "    power    Control the power manager\n    data     Control mobile data connectivity\n"
       "    wifi     Control the Wi-Fi manager\n    usb      Control Usb state\n"
       "    nfc      Control NFC functions\n    bluetooth Control Bluetooth service\n")


def svc(shell: Any, args: list[str]) -> Result:
    """``svc wifi|data|bluetooth|nfc enable|disable``, ``svc power stayon …``: taken (the
    simulated phone has no radios to switch); without a known one, its help."""
    if args[:1] and args[0] in ("power", "data", "wifi", "usb", "nfc", "bluetooth") \
            and args[1:]:
        return b"", b"", 0
    return SVC.encode(), b"", 0


def cmd(shell: Any, args: list[str]) -> Result:
    """``cmd SERVICE …``: ``cmd package list packages`` as ``pm list packages``, ``cmd -l``
    the services; a service the phone does not have: "cmd: Can't find service: NAME", 20."""
    if not args or args[0] == "-l":
        return dumpsys("-l")
    if args[0] not in SERVICES:
        return b"", f"cmd: Can't find service: {args[0]}\n".encode(), 20
    same = {"activity": "am", "package": "pm", "input": "input", "settings": "settings",
            "window": "wm"}.get(args[0])      # (`cmd package …` is what `pm …` runs)
    if same is None or not args[1:]:
        return b"", b"", 0
    return shell.command([same, *args[1:]])


COMMANDS: dict[str, Callable[[Any, list[str]], Result]] = {
    "ls": ls, "date": date, "id": id_, "ps": ps, "svc": svc, "cmd": cmd}
