import Foundation
import Logging
import SeerImage
import Synchronization
import Testing

@_spi(Fuzzing) @testable import SeerQR

/// The decoders' byte-form inputs (``DecoderInput``), which `fuzz-symbols` feeds and the readers
/// trace: every byte string is one, it writes back as itself, and what the readers trace for a real
/// symbol decodes, without the image, to what the reader read.
@Suite struct DecoderInputTests {
    /// A fixed generator, so a failure names an input that can be made again.
    struct Generator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
    }

    @Test("every byte string is an input, and its byte form reads back as the same input")
    func roundTrip() {
        var g = Generator(state: 36)
        for n in 0..<4000 {
            let length = Int(g.next() % 300)
            var bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: g.next()) }
            if !bytes.isEmpty { bytes[0] = UInt8(n % DecoderInput.kinds) }
            let input = DecoderInput(bytes: bytes)
            #expect(DecoderInput(bytes: input.bytes) == input, "input \(bytes)")
            #expect(DecoderInput.bytes(hex: Substring(input.hex)) == input.bytes)
        }
    }

    /// Keeps the trace messages logged to it.
    final class Trace: LogHandler, Sendable {
        let lines = Mutex<[String]>([])
        var metadata: Logger.Metadata {
            get { [:] }
            set {}
        }
        var logLevel: Logger.Level {
            get { .trace }
            set {}
        }
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { nil }
            set {}
        }
        func log(event: LogEvent) { lines.withLock { $0.append(event.message.description) } }
    }

    @Test(
        "what a reader hands the decoder for a real symbol decodes to what it read",
        arguments: ["aztec-1-7", "aztec-2-11", "dm-abcdefg", "dm-rect-378", "pdf417-1-01", "microqr-1-12", "maxicode-1-MODE4"])
    func tracedInputs(_ name: String) throws {
        let trace = Trace()
        var logger = Logger(label: "seer.test") { _ in trace }
        logger.logLevel = .trace
        let reader = CodeReader(options: CodeReader.Options(preset: .thorough, timeBudgetMilliseconds: 20_000), logger: logger)
        let path = Fixtures.root.appendingPathComponent("TestImages/codes-2d/\(name).png").path
        let symbols = reader.read(try Fixtures.gray(path)).filter { $0.symbology.isMatrix && $0.symbology != .qr }
        try #require(!symbols.isEmpty)
        let inputs = trace.lines.withLock { $0 }.compactMap { line -> DecoderInput? in
            guard let r = line.range(of: "decoder input "), let bytes = DecoderInput.bytes(hex: line[r.upperBound...]) else { return nil }
            return DecoderInput(bytes: bytes)
        }
        let decoded = Set(inputs.compactMap { $0.decode() })
        for symbol in symbols {
            #expect(decoded.contains(symbol.bytes), "\(symbol.symbology) \(symbol.bytes) from \(inputs.count) traced inputs")
        }
    }
}
