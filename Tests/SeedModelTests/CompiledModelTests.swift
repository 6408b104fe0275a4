import Foundation
import SeedTestSupport
import Testing

@testable import SeedModel

/// Compiled models (`.mom`, `.momd`) read from the oracles Apple's tools wrote
/// (`Tests/Fixtures/oracles`), and damaged archives refused.
@Suite("Compiled models")
struct CompiledModelTests {
    static func oracle(_ path: String) -> String { OracleFixtures.url(path).path }

    /// `NSManagedObjectModel_VersionHashes[version]` of a `.momd`'s `VersionInfo.plist`.
    static func versionInfoHashes(_ momd: String, version: String) throws -> [String: Data] {
        let data = try Data(contentsOf: URL(fileURLWithPath: oracle(momd)).appendingPathComponent("VersionInfo.plist"))
        let plist = try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any]
        let versions = try #require(plist?["NSManagedObjectModel_VersionHashes"] as? [String: [String: Data]])
        return try #require(versions[version])
    }

    @Test func momdLoadsItsCurrentVersion() throws {
        let momd = "alemar11__CoreDataPlus/SampleModel/Fixtures/SampleModel.momd"
        let model = try ModelLoader.load(Self.oracle(momd))
        #expect(model.name == "SampleModel")
        #expect(model.source?.version == "SampleModel", "VersionInfo.plist names SampleModel as current")
        #expect(model.entityVersionHashes == (try Self.versionInfoHashes(momd, version: "SampleModel")))
        #expect(model.entity(named: "Car")?.uniquenessConstraints == [["numberPlate"]])
        #expect(model.entity(named: "Person")?.uniquenessConstraints == [["firstName", "lastName"]])
    }

    @Test func momdGivesEveryVersionInOrder() throws {
        let momd = Self.oracle("alemar11__CoreDataPlus/SampleModel/Fixtures/SampleModel.momd")
        let versions = try ModelLoader.loadAllVersions(momd)
        #expect(versions.map { $0.source?.version } == ["SampleModel", "SampleModel2", "SampleModel3"])
        #expect(try ModelLoader.compiledVersionNames(ofBundle: momd) == ["SampleModel", "SampleModel2", "SampleModel3"])
        let unversioned = try ModelLoader.load(Self.oracle("drewying__Nintendoish/GameLibrary.momd"))
        #expect(unversioned.source?.version == "DataStore", "one .mom and no current version named: that one")
    }

    /// momc's output and the `contents` it compiled: the same hashes and the same model.
    @Test(arguments: [
        ("SampleModel/Fixtures/SampleModel.momd", "SampleModel/SampleModel.xcdatamodeld", "SampleModel"),
        ("SampleModel/Fixtures/SampleModel.momd", "SampleModel/SampleModel.xcdatamodeld", "SampleModel2"),
        ("SampleModel/Fixtures/SampleModel.momd", "SampleModel/SampleModel.xcdatamodeld", "SampleModel3"),
        ("SampleModel3/Fixtures/SampleModel3.momd", "SampleModel3/SampleModel3.xcdatamodeld", "SampleModel3"),
        ("SampleModel3/Fixtures/SampleModel3.momd", "SampleModel3/SampleModel3.xcdatamodeld", "SampleModel3_v2"),
        ("SampleModel3/Fixtures/SampleModel3.momd", "SampleModel3/SampleModel3.xcdatamodeld", "SampleModel3_v3"),
    ])
    func momEqualsTheXcdatamodelItWasCompiledFrom(momd: String, bundle: String, version: String) throws {
        let compiled = try ModelLoader.load(Self.oracle("alemar11__CoreDataPlus/\(momd)/\(version).mom"))
        let source = try ModelLoader.load(Self.oracle("alemar11__CoreDataPlus/\(bundle)/\(version).xcdatamodel"))
        #expect(compiled.entityVersionHashes == source.entityVersionHashes)
        #expect(compiled.versionIdentifiers == source.versionIdentifiers)
        #expect(compiled.configurations == source.configurations && compiled.fetchRequestTemplates == source.fetchRequestTemplates)
        #expect(compiled.entities.map(\.name) == source.entities.map(\.name))
        for entity in source.entities {
            let other = try #require(compiled.entity(named: entity.name))
            #expect(other.parentEntity == entity.parentEntity && other.isAbstract == entity.isAbstract, "\(entity.name)")
            #expect(other.renamingIdentifier == entity.renamingIdentifier, "\(entity.name)")
            #expect(other.representedClassName == entity.representedClassName && other.userInfo == entity.userInfo, "\(entity.name)")
            #expect(other.fetchedProperties == entity.fetchedProperties, "\(entity.name)")
            #expect(
                other.uniquenessConstraints.sorted { $0.lexicographicallyPrecedes($1) }
                    == entity.uniquenessConstraints.sorted { $0.lexicographicallyPrecedes($1) }, "\(entity.name)")
            #expect(other.attributes == entity.attributes, "\(entity.name)")
            #expect(other.relationships == entity.relationships, "\(entity.name)")
            #expect(other.indexes.map(\.elements) == entity.indexes.map(\.elements), "\(entity.name)")
        }
    }

    /// Nintendoish's checked-in `contents` was edited after its `.mom` was compiled: the `.mom`
    /// gives Apple's hashes, the later `contents` does not.
    @Test func aLaterEditOfTheContentsIsNotTheMom() throws {
        let apple = try Self.versionInfoHashes("drewying__Nintendoish/GameLibrary.momd", version: "DataStore")
        let compiled = try ModelLoader.load(Self.oracle("drewying__Nintendoish/GameLibrary.momd/DataStore.mom"))
        let edited = try ModelLoader.load(Self.oracle("drewying__Nintendoish/GameLibrary.xcdatamodeld/DataStore.xcdatamodel"))
        #expect(compiled.entityVersionHashes == apple)
        #expect(edited.entityVersionHashes != apple)
        #expect(compiled.name == "GameLibrary" && compiled.source?.version == "DataStore")
    }

    /// Hotel.mom (framework 248, 2010) spells flags as `NSIsOptional`; without `_P` the same
    /// archive gives the same model.
    @Test(.needsOracles("Sunic__DigitalOrder"))
    func theOldestFlagKeysReadLikeP() throws {
        let path = Self.oracle("Sunic__DigitalOrder/Hotel.mom")
        let model = try ModelLoader.load(path)
        #expect(model.entities.map(\.name) == ["Dishes", "Type"])
        #expect(model.entities.flatMap(\.attributes).allSatisfy { $0.isOptional && !$0.isTransient })
        #expect(model.entity(named: "Dishes")?.attribute(named: "price")?.type == .integer16)

        let plist = try BinaryPropertyList.parse([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
        guard case .dictionary(var archive) = plist, case .array(let objects)? = archive["$objects"] else {
            Issue.record("Hotel.mom is not an archive")
            return
        }
        archive["$objects"] = .array(
            objects.map { object in
                guard case .dictionary(var fields) = object else { return object }
                fields["_P"] = nil
                return .dictionary(fields)
            })
        let bytes = BinaryPropertyListWriter.write(.dictionary(archive))
        let old = try ModelLoader.load(compiledModel: Data(bytes), name: "Hotel", source: ModelSource(file: "Hotel.mom"))
        #expect(old.entityVersionHashes == model.entityVersionHashes)
        #expect(old.entities == model.entities)
    }

    @Test(arguments: [
        ([UInt8](), "too short"),
        (Array("bplist00".utf8) + [UInt8](repeating: 0, count: 40), "trailer is inconsistent"),
        (Array("<?xml version=\"1.0\"?><plist><dict/></plist>".utf8), "not a binary property list"),
        (Array("SQLite format 3\0".utf8) + [UInt8](repeating: 7, count: 100), "not a binary property list"),
        (BinaryPropertyListWriter.write(.dictionary(["NSEntities": .array([])])), "not an NSKeyedArchiver archive"),
        (
            BinaryPropertyListWriter.write(
                .dictionary([
                    "$top": .dictionary(["root": .uid(1)]), "$archiver": .string("NSKeyedArchiver"),
                    "$objects": .array([
                        .string("$null"), .dictionary(["$class": .uid(2)]),
                        .dictionary(["$classname": .string("NSArray"), "$classes": .array([.string("NSArray")])]),
                    ]),
                ])), "not an NSManagedObjectModel"
        ),
        (BinaryPropertyListWriter.write(.array([.uid(0)])), "not an NSKeyedArchiver archive"),
    ])
    func damagedArchivesAreRefusedNamingTheFile(bytes: [UInt8], reason: String) {
        do {
            _ = try ModelLoader.load(compiledModel: Data(bytes), name: "Broken", source: ModelSource(file: "Broken.mom"))
            Issue.record("a damaged archive loaded")
        } catch {
            #expect(error.description.hasPrefix("Broken.mom: error: "), "\(error)")
            #expect(error.description.contains(reason), "\(error)")
        }
    }

    /// An archive whose objects refer to themselves (an expression among its own arguments, a
    /// string made of itself, a dictionary holding itself) is refused, not followed for ever.
    @Test func archivesThatLoopAreRefused() {
        let objects: [PropertyListValue] = [
            .string("$null"),
            object(10, ["NSEntities": .uid(2), "NSConfigurations": .uid(7)]),
            object(11, ["NS.objects": .array([.uid(3), .uid(8)])]),
            object(12, ["NSEntityName": .string("E"), "NSProperties": .uid(4)]),
            object(11, ["NS.objects": .array([.uid(5)])]),
            object(
                13,
                [
                    "NSPropertyName": .string("d"), "NSAttributeType": .integer(300), "_P": .integer(247),
                    "NSDerivationExpression": .uid(6),
                ]),
            object(
                14,
                [
                    "NSExpressionType": .integer(4), "NSSelectorName": .string("count:"), "NSArguments": .uid(15),
                    "NSOperand": .uid(0),
                ]),
            object(16, ["values": .uid(7), "searchMapping": .uid(7), "emptyToken": .string("x")]),
            object(12, ["NSEntityName": .uid(9)]),
            object(17, ["NS.string": .uid(9)]),
            type("NSManagedObjectModel", "NSObject"), type("NSArray", "NSObject"),
            type("NSEntityDescription", "NSObject"),
            type("NSDerivedAttributeDescription", "NSAttributeDescription", "NSPropertyDescription", "NSObject"),
            type("NSFunctionExpression", "NSExpression", "NSObject"),
            object(11, ["NS.objects": .array([.uid(6)])]),
            type("NSKnownKeysDictionary1", "NSDictionary", "NSObject"), type("NSMutableString", "NSString", "NSObject"),
        ]
        do {
            _ = try ModelLoader.load(compiledModel: archive(objects), name: "Loop", source: ModelSource(file: "Loop.mom"))
            Issue.record("a looping archive loaded")
        } catch {
            #expect(
                error.description.contains("Loop.mom: E.d: error: the derivation uses expressions nested more than 64 deep"), "\(error)")
            #expect(error.description.contains("an entity has no name"), "\(error)")
        }
    }

    /// A model-level fetch request template, which no oracle has: its entity and its predicate
    /// written back in predicate format, options and variable included.
    @Test func fetchRequestTemplatesAreRead() throws {
        let instances: [PropertyListValue] = [
            .string("$null"),
            object(20, ["NSEntities": .uid(2), "NSFetchRequestTemplates": .uid(5), "NSVersionIdentifiers": .uid(13)]),
            object(31, ["NS.objects": .array([.uid(3)])]),
            object(21, ["NSEntityName": .string("Book"), "NSProperties": .uid(4)]),
            object(22, ["NS.keys": .array([.string("title")]), "NS.objects": .array([.uid(6)])]),
            object(22, ["NS.keys": .array([.string("byTitle")]), "NS.objects": .array([.uid(7)])]),
            object(
                23,
                [
                    "NSPropertyName": .string("title"), "NSAttributeType": .integer(700), "_P": .integer(241),
                    "NSDefaultValue": .string("Untitled"), "NSRenamingIdentifier": .string("name"),
                ]),
            object(24, ["NSEntity": .uid(3), "NSPredicate": .uid(8)]),
            object(25, ["NSLeftExpression": .uid(9), "NSRightExpression": .uid(10), "NSPredicateOperator": .uid(11)]),
            object(
                26,
                [
                    "NSExpressionType": .integer(3), "NSSelectorName": .string("valueForKey:"), "NSOperand": .uid(12),
                    "NSArguments": .uid(14),
                ]),
            object(29, ["NSExpressionType": .integer(2), "NSVariable": .string("TITLE")]),
            object(30, ["NSOperatorType": .integer(8), "NSOptions": .integer(3), "NSModifier": .integer(0)]),
            object(27, ["NSExpressionType": .integer(1)]),
            object(32, ["NS.objects": .array([.string("7"), .string("")])]),
            object(31, ["NS.objects": .array([.uid(15)])]),
            object(28, ["NSExpressionType": .integer(10), "NSKeyPath": .string("title")]),
        ]
        // The classes from object 20 on.
        let classes = [
            "NSManagedObjectModel", "NSEntityDescription", "NSDictionary", "NSAttributeDescription", "NSFetchRequest",
            "NSComparisonPredicate", "NSKeyPathExpression", "NSSelfExpression", "NSKeyPathSpecifierExpression",
            "NSVariableExpression", "NSStringPredicateOperator", "NSArray", "NSSet",
        ].map { type($0, "NSObject") }
        let objects = instances + Array(repeating: .null, count: 20 - instances.count) + classes
        let model = try ModelLoader.load(compiledModel: archive(objects), name: "Books", source: ModelSource(file: "Books.mom"))
        #expect(
            model.fetchRequestTemplates == [FetchRequestTemplate(name: "byTitle", entity: "Book", predicate: "title BEGINSWITH[cd] $TITLE")]
        )
        #expect(model.versionIdentifiers == ["7"])
        let title = try #require(model.entity(named: "Book")?.attribute(named: "title"))
        #expect(title.defaultValue == "Untitled" && !title.isOptional && title.renamingIdentifier == "name")
    }

    /// A relationship's transient flag is bit 8 of `_P`, as an attribute's: no oracle has one.
    @Test func transientRelationshipsAreRead() throws {
        let instances: [PropertyListValue] = [
            .string("$null"),
            object(10, ["NSEntities": .uid(2)]),
            object(14, ["NS.objects": .array([.uid(3), .uid(4)])]),
            object(11, ["NSEntityName": .string("Book"), "NSProperties": .uid(5)]),
            object(11, ["NSEntityName": .string("ReadingSession"), "NSProperties": .uid(6)]),
            object(12, ["NS.keys": .array([.string("sessions")]), "NS.objects": .array([.uid(7)])]),
            object(12, ["NS.keys": .array([.string("book"), .string("favourite")]), "NS.objects": .array([.uid(8), .uid(9)])]),
            object(
                13,
                [
                    "NSPropertyName": .string("sessions"), "_NSDestinationEntityName": .string("ReadingSession"),
                    "_NSInverseRelationshipName": .string("book"), "NSMaxCount": .integer(0), "NSDeleteRule": .integer(1),
                    "_P": .integer(10),
                ]),
            object(
                13,
                [
                    "NSPropertyName": .string("book"), "_NSDestinationEntityName": .string("Book"),
                    "_NSInverseRelationshipName": .string("sessions"), "NSMaxCount": .integer(1), "NSDeleteRule": .integer(1),
                    "_P": .integer(10),
                ]),
            object(
                13,
                [
                    "NSPropertyName": .string("favourite"), "_NSDestinationEntityName": .string("Book"),
                    "NSMaxCount": .integer(1), "NSDeleteRule": .integer(1), "_P": .integer(2),
                ]),
        ]
        let classes = [
            type("NSManagedObjectModel", "NSObject"), type("NSEntityDescription", "NSObject"), type("NSDictionary", "NSObject"),
            type("NSRelationshipDescription", "NSPropertyDescription", "NSObject"), type("NSArray", "NSObject"),
        ]
        let model = try ModelLoader.load(
            compiledModel: archive(instances + classes), name: "Reading", source: ModelSource(file: "Reading.mom"))
        let session = try #require(model.entity(named: "ReadingSession"))
        #expect(session.relationship(named: "book")?.isTransient == true && session.relationship(named: "book")?.isToMany == false)
        #expect(session.relationship(named: "favourite")?.isTransient == false)
        #expect(model.entity(named: "Book")?.relationship(named: "sessions")?.isTransient == true)
    }

    /// 100,000 arrays each inside the next: refused at the nesting limit, not a stack overflow.
    @Test func deeplyNestedPropertyListsAreRefused() {
        let count = 100_000
        var bytes = Array("bplist00".utf8)
        var offsets: [Int] = []
        for index in 0..<count {
            offsets.append(bytes.count)
            bytes += index == count - 1 ? [0x00] : [0xA1] + withUnsafeBytes(of: UInt32(index + 1).bigEndian, Array.init)
        }
        let table = bytes.count
        for offset in offsets { bytes += withUnsafeBytes(of: UInt64(offset).bigEndian, Array.init) }
        bytes +=
            [0, 0, 0, 0, 0, 0, 8, 4] + withUnsafeBytes(of: UInt64(count).bigEndian, Array.init)
            + [UInt8](repeating: 0, count: 8) + withUnsafeBytes(of: UInt64(table).bigEndian, Array.init)
        do {
            _ = try ModelLoader.load(compiledModel: Data(bytes), name: "Deep", source: ModelSource(file: "Deep.mom"))
            Issue.record("a 100,000-deep property list loaded")
        } catch {
            #expect(error.description.contains("Deep.mom: error: not a compiled Core Data model: object"), "\(error)")
            #expect(error.description.contains("nests too deeply"), "\(error)")
        }
    }

    /// Every truncation and every single changed byte of a real `.mom` either loads or is refused
    /// with a message: never a crash or a hang.
    @Test func everyTruncationAndFlippedByteIsReadOrRefused() throws {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.oracle("drewying__Nintendoish/GameLibrary.momd/DataStore.mom"))))
        let source = ModelSource(file: "DataStore.mom")
        var refused = 0
        for length in 0..<bytes.count {
            do { _ = try ModelLoader.load(compiledModel: Data(bytes[0..<length]), name: "DataStore", source: source) } catch {
                #expect(!error.errors.isEmpty)
                refused += 1
            }
        }
        #expect(refused == bytes.count, "every proper prefix loses the trailer")
        for position in bytes.indices {
            var damaged = bytes
            damaged[position] ^= 0xFF
            do { _ = try ModelLoader.load(compiledModel: Data(damaged), name: "DataStore", source: source) } catch {
                #expect(error.description.contains("DataStore.mom"))
            }
        }
    }

    @Test func aMomdWithoutModelsOrWithAMissingCurrentVersionIsRefused() throws {
        let folder = TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: folder.path("Empty.momd"), withIntermediateDirectories: true)
        #expect(throws: ModelError.self) { try ModelLoader.load(folder.path("Empty.momd")) }
        let data = try Data(contentsOf: URL(fileURLWithPath: Self.oracle("drewying__Nintendoish/GameLibrary.momd/DataStore.mom")))
        try FileManager.default.createDirectory(atPath: folder.path("App.momd"), withIntermediateDirectories: true)
        try data.write(to: URL(fileURLWithPath: folder.path("App.momd/A.mom")))
        try data.write(to: URL(fileURLWithPath: folder.path("App.momd/B.mom")))
        let info = try PropertyListSerialization.data(
            fromPropertyList: ["NSManagedObjectModel_CurrentVersionName": "C"], format: .binary, options: 0)
        try info.write(to: URL(fileURLWithPath: folder.path("App.momd/VersionInfo.plist")))
        do {
            _ = try ModelLoader.load(folder.path("App.momd"))
            Issue.record("a current version that is not there loaded")
        } catch {
            #expect(error.description.contains("VersionInfo.plist names \"C\" as current, but the .momd has no C.mom"), "\(error)")
        }
        #expect(try ModelLoader.loadAllVersions(folder.path("App.momd")).map { $0.source?.version } == ["A", "B"])
    }
}

/// An archived object of the class at `classID` in `$objects`.
private func object(_ classID: Int, _ fields: [String: PropertyListValue]) -> PropertyListValue {
    .dictionary(fields.merging(["$class": .uid(classID)]) { $1 })
}

/// A `$class` entry: the class name and its superclasses.
private func type(_ names: String...) -> PropertyListValue {
    .dictionary(["$classname": .string(names[0]), "$classes": .array(names.map { .string($0) })])
}

/// The bytes of an NSKeyedArchiver archive of these objects, rooted at object 1.
private func archive(_ objects: [PropertyListValue]) -> Data {
    Data(
        BinaryPropertyListWriter.write(
            .dictionary([
                "$archiver": .string("NSKeyedArchiver"), "$top": .dictionary(["root": .uid(1)]), "$objects": .array(objects),
            ])))
}
