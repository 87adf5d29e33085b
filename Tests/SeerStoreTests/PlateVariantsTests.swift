import Foundation
import Seer
import SeerCodegen
import Testing

/// The grammar-backed plate variants, alone and through resolution against a real SQLite file.
@Suite struct GrammarPlateVariantsTests {
    let provider = GrammarPlateVariants()

    @Test func countriesMapToGrammarRegions() throws {
        #expect(try Country.parse("GB").plateRegion == .eu)
        #expect(try Country.parse("de").plateRegion == .eu)
        #expect(try Country.parse("US").plateRegion == .us)
        #expect(try Country.parse("br").plateRegion == .br)
        #expect(try Country.parse("JP").plateRegion == nil)
    }

    @Test func variantsAreValidPlatesOfTheRegion() {
        let variants = provider.variants(of: "A812CDE", region: .eu)
        #expect(variants.first == "AB12CDE")
        #expect(!variants.contains("A812CDE"))
        #expect(!variants.contains("A8I2CDE"))  // a generic swap, but no UK plate
        let eu = PlateGrammar.standard.formats(for: .eu).filter { $0.weight >= 0.6 }
        for variant in variants { #expect(eu.contains { $0.matches(variant) }, "\(variant)") }
        // Brazil: a Mercosul plate read with O for 0 in a digit slot.
        #expect(provider.variants(of: "RIO2A1B", region: .br).first == "RIO2A18")
    }

    @Test func fallsBackToConfusionVariants() {
        let generic = ConfusionVariants()
        // A plate no format of the region fits.
        #expect(provider.variants(of: "8OB123", region: .br) == generic.variants(of: "8OB123", region: .br))
    }

    @Test(arguments: StoreKind.testable) func theEngineResolvesThroughTheGrammar(_ kind: StoreKind) throws {
        let temporary = try TemporaryStore(kind)
        _ = try temporary.store.importRegistry(try VerifyDemo.registryFiles().map { ($0.name, try JSONEncoder().encode($0.file)) })
        // One swap from the reading A812CDE each: a valid UK plate, and a text no UK format allows.
        _ = try temporary.store.importRegistry([
            ("more.json", try JSONEncoder().encode(RegistryFile(users: [
                PlateOwner(id: "rcp-000002", name: "Fay Example", email: "fay@example.com", plate: "A8I2 CDE", country: try Country.parse("GB"))
            ])))
        ])
        let engine = Engine()
        let grammar = try engine.resolvePlate("A812 CDE", country: try Country.parse("GB"), store: temporary.store)
        #expect(grammar == PlateResolution(status: .resolved, recipient: "rcp-7f3a9c", plate: "AB12CDE", viaVariant: true))
        // The generic swapper cannot tell the two apart.
        var configuration = Engine.Configuration()
        configuration.plateVariants = ConfusionVariants()
        let generic = try Engine(configuration: configuration).resolvePlate("A812 CDE", country: try Country.parse("GB"), store: temporary.store)
        #expect(generic.status == .ambiguous)
        #expect(Set(generic.candidates) == ["AB12CDE", "A8I2CDE"])
        // Plates that fit no UK format still resolve through the generic pairs (the demo's B0B 123 and 808 123).
        #expect(try engine.resolvePlate("8OB123", store: temporary.store).candidates == ["B0B123", "808123"])
    }
}
