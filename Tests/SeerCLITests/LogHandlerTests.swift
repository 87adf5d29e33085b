import Logging
import Synchronization
import Testing

@testable import seer

/// The log handler writes `StreamLogHandler`'s lines, formatting a logger's metadata only when a line
/// is written.
@Suite struct LogHandlerTests {
    final class Lines: TextOutputStream, Sendable {
        let text = Mutex("")
        func write(_ string: String) { text.withLock { $0 += string } }
        /// The lines without their timestamps (the first word).
        var untimed: [String] {
            text.withLock { $0 }.split(separator: "\n").map { String($0.drop(while: { $0 != " " })) }
        }
    }

    struct Failure: Error {}

    func write(to logger: inout Logger) {
        logger.logLevel = .info
        logger.info("started")
        logger.debug("not written")
        logger[metadataKey: "hb.request.id"] = "7"
        logger[metadataKey: "a"] = "first"
        logger.info("request", metadata: ["route": "/v1/scans", "a": "line's own"])
        logger[metadataKey: "a"] = nil
        logger.warning("slow", metadata: ["ms": "12.5"])
        logger.error("failed", error: Failure())
        logger.info("plain")
    }

    @Test func itsLinesAreStreamLogHandlerLines() {
        let ours = Lines()
        let theirs = Lines()
        var mine = Logger(label: "seer.test") { label in StandardErrorLogHandler(lines: StreamLogHandler(label: label, stream: ours, metadataProvider: nil)) }
        var reference = Logger(label: "seer.test") { label in StreamLogHandler(label: label, stream: theirs, metadataProvider: nil) }
        write(to: &mine)
        write(to: &reference)
        #expect(ours.untimed.count == 5)
        #expect(ours.untimed == theirs.untimed)
        #expect(ours.untimed[1] == " info seer.test: a=line's own hb.request.id=7 route=/v1/scans [SeerCLITests] request")
        #expect(mine[metadataKey: "hb.request.id"] == "7")
        #expect(mine[metadataKey: "a"] == nil)
    }
}
