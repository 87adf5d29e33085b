// A synthetic scan history for the store benchmarks (the Store suite, pg-bench fill): six products of
// three brands in three categories, four verdicts in runs of seven scans, 200 devices, 1 000 source
// files, four countries, serials counting up, times spread evenly over the 90 days before `now`.
import Seer

public struct SyntheticHistory: Sendable {
    /// How many scans.
    public var count: Int
    /// The first scan's serial number (`S` and the number); each next scan's is one more.
    public var firstSerial: Int
    /// The moment the history ends (seconds since 1970).
    public var now: Double

    public init(count: Int, firstSerial: Int, now: Double) {
        self.count = count
        self.firstSerial = firstSerial
        self.now = now
    }

    static let products = [
        ("Radiance Serum 30 ml", "acme", "cosmetics"), ("Night Cream 50 ml", "acme", "cosmetics"),
        ("Ceramic Brake Pads", "globex", "autoparts"), ("Plain Soap", "plainco", "household"),
        ("Oil Filter", "globex", "autoparts"), ("Sun Lotion", "acme", "cosmetics"),
    ]
    static let verdicts: [(Verdict, [Reason])] = [
        (.authentic, [.validSignature, .registeredSerial]), (.counterfeit, [.badSignature]),
        (.suspicious, [.cloneSuspected, .tooManyScans]), (.unknown, [.unknownProduct, .unsigned]),
    ]

    /// The scan at `index` (0 ..< count).
    public func scan(_ index: Int) -> ScanRecord {
        let product = Self.products[index % Self.products.count]
        let (verdict, reasons) = Self.verdicts[(index / 7) % Self.verdicts.count]
        let serial = "S\(firstSerial + index)"
        let verification = Verification(
            verdict: verdict, reasons: reasons, payload: "https://id.example.com/01/09506000134352/21/\(serial)?17=281231",
            format: .digitalLink, gtin: "09506000134352", serial: serial, lot: "L\(index % 50)", expiry: "281231",
            product: ProductInfo(name: product.0, brand: product.1, category: product.2))
        let context = ScanContext(
            time: now - 90 * 86_400 + Double(index) * (90 * 86_400 / Double(max(1, count))), device: "device-\(index % 200)",
            country: ["DE", "FR", "NL", "US"][index % 4])
        return ScanRecord(verification, context: context, mode: .batch, sourceFile: "shelf-\(index % 1000).jpg", symbology: "qrcode")
    }

    /// Saves every scan into `store`, oldest first, `batch` scans a call.
    public func record(into store: some SeerStore, batch: Int = 10_000) throws {
        var start = 0
        repeat {
            let end = min(count, start + batch)
            try store.record((start..<end).map(scan))
            start = end
        } while start < count
    }
}
