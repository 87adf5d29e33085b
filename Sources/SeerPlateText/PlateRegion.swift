/// The plate grammar regions: the families of plate formats Seer reads and checks plates against.
///
/// This is the one region type of the library and the command line (`--region us|eu|br|auto`,
/// `auto` meaning every region). Where a plate is registered is a ``Country``, not a region.
public enum PlateRegion: String, Codable, Sendable, CaseIterable {
    /// United States (general formats and several states).
    case us
    /// Europe (Germany, France, Italy, Spain, Netherlands, Slovakia, Czechia, Poland, UK).
    case eu
    /// Brazil (old `ABC1234` and Mercosul `ABC1D23`).
    case br

    /// Parses a region as the command line takes it: `us`, `eu`, `br` (any case), or `auto`/`all`
    /// for every region (nil inside the optional). Anything else — a country name, a country code —
    /// is not a region and gives nil.
    public static func parse(_ text: String) -> PlateRegion?? {
        let lowered = text.lowercased()
        if lowered == "auto" || lowered == "all" { return .some(nil) }
        return PlateRegion(rawValue: lowered).map { .some($0) }
    }
}
