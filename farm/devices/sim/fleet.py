"""Simulators started for one run (``--devices android-sim:2,ios-sim:1``) and stopped after."""

from __future__ import annotations

from farm.devices.sim import AndroidSimulator, IosSimulator


class SimFleet:
    """Starts simulators on demand, backed by the run's apps; `stop` ends them all.

    ``android_apps`` maps package → app URL, ``ios_apps`` bundle id → app URL.
    """

    def __init__(self, android_apps: dict[str, str] | None = None,
                 ios_apps: dict[str, str] | None = None,
                 chromium_path: str | None = None) -> None:
        self.android_apps = dict(android_apps or {})
        self.ios_apps = dict(ios_apps or {})
        self.chromium_path = chromium_path
        self.started: list[AndroidSimulator | IosSimulator] = []

    def android(self, count: int) -> AndroidSimulator:
        """Start ``count`` simulated Android devices behind one adb server (a free port)."""
        sim = AndroidSimulator(count, self.android_apps, chromium_path=self.chromium_path)
        sim.start()
        self.started.append(sim)
        return sim

    def ios(self, count: int) -> IosSimulator:
        """Start ``count`` simulated iOS devices (one WDA endpoint each)."""
        sim = IosSimulator(count, self.ios_apps, chromium_path=self.chromium_path)
        sim.start()
        self.started.append(sim)
        return sim

    def stop(self) -> None:
        """Stop every simulator started; safe twice."""
        while self.started:
            self.started.pop().stop()

    def __enter__(self) -> "SimFleet":
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
