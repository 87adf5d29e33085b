import CSeerShims
import Foundation

/// One thread that runs actions when their deadlines pass: the time budgets of a ``WorkerPool``'s
/// jobs and the waits of its callers for room.
///
/// Nearly every action is removed before its deadline (the job finished in time), so the thread sleeps
/// until the earliest deadline it knows of, and is woken early only for a deadline earlier than that:
/// with deadlines a fixed budget after each request, about once per budget. (A sleeping task per
/// request cost a task, a timer, and two hops through Swift's thread pool each.)
final class Deadlines: @unchecked Sendable {
    struct Entry {
        let deadline: ContinuousClock.Instant
        let action: @Sendable () -> Void
    }

    // Everything below is guarded by `condition`.
    private let condition = NSCondition()
    private var entries: [Int: Entry] = [:]
    private var nextID = 0
    /// When the thread looks next; nil while it sleeps until told.
    private var wake: ContinuousClock.Instant?
    private var stopped = false

    /// Starts the thread, named `name`.
    init(name: String) {
        let thread = Thread { [self] in
            nameCurrentThread(name)
            self.loop()
        }
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// Actions waiting for their deadlines.
    var count: Int {
        condition.lock()
        defer { condition.unlock() }
        return entries.count
    }

    /// Runs `action` on the thread once `deadline` has passed, unless it is removed first.
    /// - Returns: the number that removes it.
    func add(at deadline: ContinuousClock.Instant, _ action: @escaping @Sendable () -> Void) -> Int {
        condition.lock()
        defer { condition.unlock() }
        let id = nextID
        nextID += 1
        entries[id] = Entry(deadline: deadline, action: action)
        if wake.map({ deadline < $0 }) ?? true {
            wake = deadline
            condition.signal()
        }
        return id
    }

    /// Removes the action `id` (if it has not run).
    func remove(_ id: Int) {
        condition.lock()
        entries[id] = nil
        condition.unlock()
    }

    /// Stops the thread; actions not yet run never run.
    func stop() {
        condition.lock()
        stopped = true
        entries = [:]
        condition.signal()
        condition.unlock()
    }

    private func loop() {
        condition.lock()
        while !stopped {
            let now = ContinuousClock.now
            var due: [Entry] = []
            var earliest: ContinuousClock.Instant?
            for (id, entry) in entries {
                if entry.deadline <= now {
                    due.append(entry)
                    entries[id] = nil
                } else if earliest.map({ entry.deadline < $0 }) ?? true {
                    earliest = entry.deadline
                }
            }
            if !due.isEmpty {
                condition.unlock()
                for entry in due.sorted(by: { $0.deadline < $1.deadline }) { entry.action() }
                condition.lock()
                continue
            }
            wake = earliest
            if let earliest {
                _ = condition.wait(until: Date(timeIntervalSinceNow: (earliest - now).seconds))
            } else {
                condition.wait()
            }
        }
        condition.unlock()
    }
}

/// Names the calling thread (as `top` and `/proc/PID/task/*/comm` show it: its first 15 bytes, the
/// kernel's limit). Foundation's `Thread.name` does not always reach the system thread when set as
/// the thread starts.
func nameCurrentThread(_ name: String) {
    _ = seer_name_thread(name)
    Thread.current.name = name
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
