import CSeerShims
import Dispatch
import Foundation
import Synchronization

/// Keeps the service's CPUs from halting while photos flow.
///
/// A CPU with nothing to run halts. Waking it again costs more than the wake-up itself: on a virtual
/// machine the hypervisor may have given the physical core to another guest, and on real hardware a
/// deep sleep state empties the core's caches. At low concurrency this happens between every two
/// photos: while one client's answer travels back and its next photo arrives, and on the CPUs that
/// wait while a worker reads a photo. Each photo then starts on cold caches, and each hand-off (a
/// worker's answer to its event loop, a request to its worker) waits for a CPU to wake.
///
/// One poller thread per CPU spins on that CPU (with the CPU's spin-wait hint) from the moment a job
/// is queued until ``linger`` after the last job finishes, and parks otherwise. It runs under Linux's
/// SCHED_IDLE policy: only when its CPU has nothing else to run, and any other thread that wakes there
/// takes the CPU from it at once. So it takes no time from the workers, the event loops or other
/// processes; what it spends is time the CPU would have spent halted (power, and on machines billed or
/// throttled by CPU time, that time). With no photos in flight the pollers are parked and cost nothing.
public final class BusyPoll: Sendable {
    /// How long the pollers keep polling after the last job finishes: long enough to cover an answer's
    /// way to its client and the next photo's way in.
    public let linger: Duration
    /// The CPUs polled, one poller on each.
    public let cpus: [Int]

    let lingerNanoseconds: UInt64
    /// Jobs queued or running.
    let jobs = Atomic<Int>(0)
    /// `DispatchTime` uptime, in nanoseconds, until which the pollers poll with no job in hand.
    let until = Atomic<UInt64>(0)
    let stopping = Atomic<Bool>(false)
    let pollers: [Poller]

    final class Poller: Sendable {
        /// 1 while parked (waiting on `wake`), else 0.
        let parked = Atomic<Int>(0)
        let wake = DispatchSemaphore(value: 0)
        let stopped = DispatchSemaphore(value: 0)

        /// Wakes the poller if it is parked (once: a waker that finds it already unparked does nothing).
        func wakeIfParked() {
            if parked.load(ordering: .sequentiallyConsistent) == 1,
                parked.compareExchange(expected: 1, desired: 0, ordering: .sequentiallyConsistent).exchanged
            {
                wake.signal()
            }
        }
    }

    /// Starts one poller on each of `cpus` (named `name-0`, `name-1`, …), parked until a job is queued.
    /// On systems without SCHED_IDLE it starts none (a poller there would take time from real work).
    public init(name: String, cpus: [Int], linger: Duration) {
        self.linger = linger
        lingerNanoseconds = UInt64(max(0, linger.seconds * 1e9))
        #if os(Linux)
        self.cpus = cpus
        #else
        self.cpus = []
        #endif
        pollers = self.cpus.map { _ in Poller() }
        for (index, cpu) in self.cpus.enumerated() {
            let poller = pollers[index]
            let thread = Thread { [self] in
                nameCurrentThread("\(name)-\(index)")
                guard seer_thread_idle_scheduling() == 1 else {
                    // Never spin at a normal priority.
                    poller.stopped.signal()
                    return
                }
                _ = seer_pin_thread(Int32(cpu))
                self.poll(poller)
            }
            thread.stackSize = 64 << 10
            thread.start()
        }
    }

    /// Whether the pollers should be polling now.
    var isActive: Bool {
        jobs.load(ordering: .sequentiallyConsistent) > 0 || DispatchTime.now().uptimeNanoseconds < until.load(ordering: .relaxed)
    }

    /// A job was queued: the pollers poll until it finishes, and ``linger`` after.
    func jobQueued() {
        jobs.add(1, ordering: .sequentiallyConsistent)
        for poller in pollers { poller.wakeIfParked() }
    }

    /// A job finished (or was dropped unrun).
    func jobFinished() {
        until.store(DispatchTime.now().uptimeNanoseconds + lingerNanoseconds, ordering: .relaxed)
        jobs.subtract(1, ordering: .sequentiallyConsistent)
    }

    func poll(_ poller: Poller) {
        while !stopping.load(ordering: .relaxed) {
            if isActive {
                for _ in 0..<64 { seer_cpu_relax() }
                continue
            }
            // Park. A job queued after `parked` is set sees it and wakes this poller; one queued
            // before is seen by the check that follows.
            poller.parked.store(1, ordering: .sequentiallyConsistent)
            if isActive || stopping.load(ordering: .sequentiallyConsistent) {
                if poller.parked.compareExchange(expected: 1, desired: 0, ordering: .sequentiallyConsistent).exchanged { continue }
                // A waker took the flag: its signal is on its way.
            }
            poller.wake.wait()
        }
        poller.stopped.signal()
    }

    /// Pollers parked now.
    var parkedCount: Int { pollers.filter { $0.parked.load(ordering: .relaxed) == 1 }.count }

    /// Stops the pollers and waits for them.
    public func stop() {
        if stopping.exchange(true, ordering: .sequentiallyConsistent) { return }
        for poller in pollers { poller.wakeIfParked() }
        for poller in pollers { poller.stopped.wait() }
    }
}
