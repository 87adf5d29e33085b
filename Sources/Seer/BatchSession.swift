import SeerCrypto
import SeerStore
import SeerVerify

/// A batch verified as it goes: inputs are added one at a time, verified, and saved in
/// transactions of at most ``chunkSize`` inputs; ``add(_:)`` returns the results just saved, so a
/// caller prints a result only once it is in the database. A run that was stopped (even killed) is
/// continued by a session made with `resume` and the same key: the inputs it already saved are
/// skipped, and repeats across the stop are still `duplicateInBatch`.
///
/// Use a session from one thread at a time.
public final class BatchSession {
    /// Inputs verified and saved per transaction.
    public let chunkSize: Int
    /// How many inputs the resumed run had already saved (0 for a new run); the first that many
    /// inputs added are skipped.
    public let alreadySaved: Int
    /// The run's id (the `batchID` of its scans).
    public var batchID: String { progress.id }

    let store: any SeerStore
    let verifier: Verifier
    let context: ScanContext
    var progress: BatchProgress
    var pending: [ScanInput] = []
    var seen = 0
    var finished = false

    /// Starts a batch run, or continues the newest unfinished one with the same key.
    ///
    /// - Parameters:
    ///   - key: what identifies the run's inputs (see ``key(_:)``); a resumed run must have the same.
    ///   - resume: continue the unfinished run with this key, if there is one.
    /// - Throws: ``StoreError``.
    public init(
        engine: Engine, store: any SeerStore, context: ScanContext, key: String, resume: Bool, chunkSize: Int = 64
    ) throws {
        self.store = store
        self.verifier = Verifier(configuration: engine.configuration.verify)
        self.context = context
        self.chunkSize = max(1, chunkSize)
        self.progress = try store.beginBatch(key: key, resume: resume, at: context.time)
        self.alreadySaved = progress.processed
    }

    /// A key for a run's inputs: the SHA-256 of its parts (paths, payloads, options) in order.
    public static func key(_ parts: [String]) -> String {
        var hasher = SHA256()
        for part in parts {
            hasher.update(data: Array(part.utf8))
            hasher.update(data: [0])
        }
        return hasher.finalize().map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }

    /// Adds the next input; returns the results saved by this call (empty until a transaction's
    /// worth of inputs is waiting). Inputs a resumed run already saved are skipped.
    /// - Throws: ``StoreError`` (nothing of the failed transaction was saved).
    public func add(_ input: ScanInput) throws -> [Verification] {
        seen += 1
        if seen <= alreadySaved { return [] }
        pending.append(input)
        return pending.count >= chunkSize ? try flush() : []
    }

    /// Saves what is waiting and marks the run finished.
    public func finish() throws -> [Verification] {
        let results = try flush()
        if !finished {
            try store.finishBatch(progress)
            finished = true
        }
        return results
    }

    func flush() throws -> [Verification] {
        guard !pending.isEmpty else { return [] }
        let results = try store.verify(pending, context: context, verifier: verifier, progress: &progress)
        pending.removeAll(keepingCapacity: true)
        return results
    }
}
