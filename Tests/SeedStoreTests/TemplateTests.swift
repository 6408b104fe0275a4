import Foundation
import SeedModel
import SeedStore
import SeedTestSupport
import Testing

@Suite("Fetch request templates and fetched properties without a predicate")
struct TemplateTests {
    private let directory = TemporaryDirectory()

    /// The shop model with a template and a fetched property that has no predicate, as Xcode writes them.
    private func coordinator() throws -> StoreCoordinator {
        var model = try shopModel()
        model.fetchRequestTemplates = [
            FetchRequestTemplate(name: "cheaperThan", entity: "Product", predicate: "price < $LIMIT"),
            FetchRequestTemplate(name: "everyNote", entity: "Note"),
        ]
        let product = model.entities.firstIndex { $0.name == "Product" }!
        model.entities[product].fetchedProperties.append(FetchedProperty(name: "allNotes", entity: "Note", predicate: ""))
        try model.validated()
        let coordinator = StoreCoordinator(model: model)
        try coordinator.addStore(StoreDescription(type: .sqlite, url: directory.url("catalog.sqlite"), configuration: "Catalog"))
        try coordinator.addStore(StoreDescription(type: .sqlite, url: directory.url("notes.sqlite"), configuration: "Notes"))
        return coordinator
    }

    @Test func templatesRunByNameWithSubstitution() throws {
        let coordinator = try coordinator()
        let context = ObjectContext(coordinator: coordinator)
        try populateShop(context)
        var cheap = try FetchRequest(template: "cheaperThan", in: coordinator.model, substitutionVariables: ["LIMIT": .value(.real(1.5))])
        cheap.sortDescriptors = [FetchSortDescriptor("sku")]
        #expect(try context.fetch(cheap).map { try $0.string("sku") } == ["A-1", "A-2"])
        #expect(try context.count(try FetchRequest(template: "everyNote", in: coordinator.model)) == 3)

        let missing = #expect(throws: FetchPredicateError.self) { try FetchRequest(template: "nope", in: coordinator.model) }
        #expect(missing?.message.contains("no fetch request template named \"nope\"; it has cheaperThan, everyNote") == true)
        let unbound = #expect(throws: FetchPredicateError.self) { try FetchRequest(template: "cheaperThan", in: coordinator.model) }
        #expect(unbound?.message.contains("fetch request template cheaperThan: no value for $LIMIT") == true)
    }

    @Test func fetchedPropertyWithoutPredicateFetchesEveryObject() throws {
        let context = ObjectContext(coordinator: try coordinator())
        let objects = try populateShop(context)
        #expect(try objects["B-1"]!.fetchedObjects("allNotes").count == 3, "as Core Data: no predicate fetches every object")
        #expect(try objects["B-1"]!.fetchedObjects("notes").isEmpty)
    }
}
