import Synchronization

/// A request that work stop early: set by whoever is waiting for the work (a service whose request
/// ran out of time), checked by recognition between its steps, so that work nobody waits for any
/// more ends soon instead of running to its end.
///
/// The work in progress on a thread finds its cancellation in ``current``, set around it with
/// `Cancellation.$current.withValue(cancellation) { … }`; work run without one is never cancelled.
/// Recognition checks ``requested`` between its passes and rows and returns what it has read so far;
/// the Engine then throws ``Stopped`` instead of verifying or saving a partial scan.
public final class Cancellation: Sendable {
    let flag = Atomic(false)

    /// A cancellation not yet requested.
    public init() {}

    /// Asks the work to stop.
    public func cancel() { flag.store(true, ordering: .relaxed) }

    /// Whether the work was asked to stop.
    public var isCancelled: Bool { flag.load(ordering: .relaxed) }

    /// The cancellation of the work running on this thread or task, if it has one.
    @TaskLocal public static var current: Cancellation?

    /// Whether the work running on this thread or task was asked to stop.
    public static var requested: Bool { current?.isCancelled ?? false }

    /// Throws ``Stopped`` when the work running on this thread or task was asked to stop.
    public static func check() throws(Stopped) {
        if requested { throw Stopped() }
    }

    /// Work stopped before its end because it was asked to stop.
    public struct Stopped: Error, Sendable, Equatable, CustomStringConvertible {
        public init() {}
        public var description: String { "The work was stopped before its end: nobody waits for it any more." }
    }
}
