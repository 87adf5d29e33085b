import SeerImage

#if canImport(Glibc)
import Glibc
#endif

/// The CPU time one photo's plate reading may take. Work stops at the next check once it is spent,
/// or once the read is asked to stop (``Cancellation``); what was found before then is still ranked
/// and returned.
struct PlateBudget: Sendable {
    /// The calling thread's CPU time when reading began, in milliseconds.
    let start: Double
    /// The time allowed, in CPU milliseconds (infinity: no limit).
    let milliseconds: Double

    init(milliseconds: Double) {
        self.start = Self.cpuMilliseconds()
        self.milliseconds = milliseconds
    }

    /// No limit.
    static let unlimited = PlateBudget(milliseconds: .infinity)

    /// The calling thread's CPU time: the budget counts work done, not time spent waiting for a
    /// core on a loaded machine.
    static func cpuMilliseconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) * 1000 + Double(ts.tv_nsec) / 1e6
    }

    /// CPU milliseconds spent since reading began.
    var elapsed: Double { Self.cpuMilliseconds() - start }

    /// Whether the time allowed is spent, or the read was asked to stop.
    var exhausted: Bool { (milliseconds.isFinite && elapsed > milliseconds) || Cancellation.requested }
}
