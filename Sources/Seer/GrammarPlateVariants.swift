import SeerPlate
import SeerVerify

/// Plate variants from the region's plate grammar: the plates a reading could have been that are
/// valid plates where it was read. The ``Engine``'s default ``PlateVariantProvider``.
///
/// For a plate that fits a format of the region (formats of weight 0.6 or more, as
/// ``PlateGrammar/normalize(_:region:)`` uses them) the variants are, best first:
/// 1. the grammar's canonical form when it differs (the closest text that fits a format, e.g.
///    `A812CDE` → `AB12CDE` under the UK format) and its grammar-valid confusion variants, which swap
///    a glyph only where a format demands a letter or a digit;
/// 2. then the `fallback`'s variants that fit a format of the region: where a slot takes both a
///    letter and a digit (O and 0, say) only the generic swap can tell them apart.
///
/// Variants that fit no format are dropped. When the plate fits no format of the region, or the
/// region has no grammar (a country Seer has no plates for), the `fallback`'s variants are used as
/// they are.
///
/// The region is a grammar region (``PlateRegion``); for an owner's country it is the country's
/// (``Country/plateRegion``), and every region when there is none.
public struct GrammarPlateVariants: PlateVariantProvider {
    /// The grammar whose formats decide which variants are valid.
    public var grammar: PlateGrammar
    /// Generic variants, used filtered by the grammar, and as they are when no format fits.
    public var fallback: any PlateVariantProvider
    /// Formats with a lower weight (the catch-all ones) do not count as a match.
    public var minimumWeight: Double

    /// Creates the provider over Seer's standard grammars, with ``ConfusionVariants`` as the fallback.
    public init(
        grammar: PlateGrammar = .standard, fallback: any PlateVariantProvider = ConfusionVariants(), minimumWeight: Double = 0.6
    ) {
        self.grammar = grammar
        self.fallback = fallback
        self.minimumWeight = minimumWeight
    }

    /// Grammar-valid variants of canonical `plate` (the plate itself excluded), best first.
    public func variants(of plate: String, region: PlateRegion?) -> [String] {
        let normalized = grammar.normalize(plate, region: region)
        guard normalized.grammar != nil else { return fallback.variants(of: plate, region: region) }
        let formats = grammar.formats(for: region).filter { $0.weight >= minimumWeight }
        let generic = fallback.variants(of: plate, region: region).filter { variant in formats.contains { $0.matches(variant) } }
        var seen: Set<String> = [plate]
        return ([normalized.canonical] + normalized.variants + generic).filter { seen.insert($0).inserted }
    }
}
