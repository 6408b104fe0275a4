import Foundation
import SeedModel
import SeedPipeline
import SeedStore
import SeedTestSupport
import Testing

/// Link files and references naming objects by a key of any type a uniqueness constraint holds,
/// written in any form the entity's own file accepts for that type, in both layouts.
@Suite("Link file key types")
struct LinkKeyTypeTests {
    /// One key type: the books' keys as `books.csv` writes them, the same keys written another way
    /// in the link file, a key of the type no book has, and a key that is no value of the type.
    struct KeyCase: Sendable, CustomTestStringConvertible {
        let type: String
        let books: [String]
        let links: [String]
        let absent: String?
        /// The invalid text, and the words of the rejection that say what form is expected.
        let invalid: (text: String, expected: String)?

        var testDescription: String { type }
    }

    static let cases: [KeyCase] = [
        KeyCase(
            type: "UUID",
            books: [
                "6f0c7c1e-8a2b-4c3d-9e4f-0a1b2c3d4e5f", "A1B2C3D4-E5F6-4789-ABCD-EF0123456789", "00000000-0000-0000-0000-00000000001f",
                "ffffffff-ffff-ffff-ffff-ffffffffffff",
            ],
            links: [
                "6F0C7C1E-8A2B-4C3D-9E4F-0A1B2C3D4E5F", "a1b2c3d4-e5f6-4789-abcd-ef0123456789", "00000000-0000-0000-0000-00000000001F",
                "FFFFFFFF-ffff-FFFF-ffff-FFFFFFFFFFFF",
            ],
            absent: "11111111-2222-3333-4444-555555555555",
            invalid: ("6f0c7c1e-8a2b-4c3d-9e4f", "is not a UUID; write 8-4-4-4-12 hexadecimal digits")),
        KeyCase(
            type: "Integer 64", books: ["7", "-12", "0", "9007199254740993"], links: ["007", "-012", "-0", "+9007199254740993"],
            absent: "9007199254740992", invalid: ("7.5", "is not a whole number; write digits with an optional sign")),
        KeyCase(
            type: "Date",
            books: ["2024-05-01", "2024-05-01T12:30:00.25Z", "1969-07-20T20:17:40Z", "2001-01-01"],
            links: ["2024-05-01T00:00:00Z", "2024-05-01T14:30:00.25+02:00", "1969-07-20 20:17:40", "2001-01-01T01:00:00+01:00"],
            absent: "2024-05-02", invalid: ("01/05/2024", "is not a date; write yyyy-MM-dd or ISO 8601")),
        KeyCase(
            type: "Decimal", books: ["1.5", "-0.25", "100", "12345678901234567890"],
            links: ["1.50", "-.250", "100.00", "012345678901234567890.0"],
            absent: "1.6", invalid: ("1.5e3", "is not a decimal number; write digits with an optional sign and . (no exponent)")),
        KeyCase(
            type: "Double", books: ["2.5", "10", "-0.125", "1e-7"], links: ["2.50", "1e1", "-1.25e-1", "0.0000001"],
            absent: "2.6", invalid: ("two", "is not a number")),
        KeyCase(
            type: "Boolean", books: ["true", "NO"], links: ["YES", "0"], absent: nil,
            invalid: ("maybe", "is not a boolean; write true/false, yes/no or 1/0")),
        // Text is matched as written: a key in another case is another key.
        KeyCase(
            type: "String", books: ["b-1", "Émile", "007", "x y"], links: ["b-1", "Émile", "007", "x y"], absent: "B-1", invalid: nil),
    ]

    static let titles = ["Dune", "Emma", "Solaris", "Ubik"]

    /// Books keyed by `code` of the case's type, genres (a many-to-many fed by a link file) and
    /// reviews (a to-one fed by a column of the reviews' own file).
    /// - Parameter editionType: when given, the key is compound: `code` and an `edition` of this type.
    static func model(keyType: String, editionType: String? = nil) -> String {
        let compound = editionType != nil
        let edition = editionType.map { #", {"name": "edition", "type": "\#($0)", "optional": false}"# } ?? ""
        return """
            {"name": "Library", "versionIdentifiers": ["1"], "entities": [
              {"name": "Book", "attributes": [{"name": "code", "type": "\(keyType)", "optional": false}, {"name": "title", "type": "String"}\(edition)],
               "uniquenessConstraints": [\(compound ? #"["code", "edition"]"# : #"["code"]"#)],
               "relationships": [{"name": "genres", "destination": "Genre", "inverse": "books", "toMany": true},
                                 {"name": "reviews", "destination": "Review", "inverse": "book", "toMany": true}]},
              {"name": "Genre", "attributes": [{"name": "name", "type": "String", "optional": false}], "uniquenessConstraints": [["name"]],
               "relationships": [{"name": "books", "destination": "Book", "inverse": "genres", "toMany": true}]},
              {"name": "Review", "attributes": [{"name": "stars", "type": "Integer 16", "optional": false}], "uniquenessConstraints": [["stars"]],
               "relationships": [{"name": "book", "destination": "Book", "inverse": "reviews"}]}]}
            """
    }

    /// Builds the files in `folder`, allowing a few rejected rows.
    static func build(_ files: [String: String], model: String, layout: StoreLayout, in folder: TemporaryDirectory) throws -> BuiltStore {
        let modelPath = folder.write("model.json", model)
        for (name, text) in files { folder.write("in/\(name)", text) }
        var options = BuildOptions(files: [folder.path("in/books.csv")])
        options.model = modelPath
        options.format = layout
        options.maxRejects = 5
        options.outputDirectory = folder.path("out")
        var (request, _) = try options.resolve(project: nil)
        request.buildTime = Date(timeIntervalSince1970: 1_700_000_000)
        return try SeedBuilder().build(request)
    }

    /// The titles of the books a predicate selects, read through the runtime.
    static func titles(_ predicate: String, in built: BuiltStore, model: String, layout: StoreLayout) throws -> [String] {
        let coordinator = StoreCoordinator(model: try ModelLoader.load(json: Data(model.utf8), source: ModelSource(file: "Library.json")))
        try coordinator.addStore(
            StoreDescription(type: .sqlite, url: URL(fileURLWithPath: built.storePath), isReadOnly: true, storeLayout: layout))
        let context = ObjectContext(coordinator: coordinator)
        let books = try context.fetch(
            FetchRequest(entity: "Book", predicate: try FetchPredicate(predicate), sortDescriptors: [FetchSortDescriptor("title")]))
        return books.compactMap { $0["title"].stringValue }
    }

    /// The rejects file's lines, without its header.
    static func rejects(_ built: BuiltStore) throws -> [String] {
        guard let path = built.rejectsPath else { return [] }
        return try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").dropFirst().map(String.init)
    }

    /// Every link given in another form of the key finds its book, in both layouts; a key no book
    /// has and a key that is no value of the type are rejected rows naming the line, column and
    /// field, the second saying what form is expected.
    @Test(arguments: cases, [StoreLayout.plain, .coreData])
    func linksFindBooksByEveryKeyForm(_ keys: KeyCase, layout: StoreLayout) throws {
        let folder = TemporaryDirectory()
        let titles = Self.titles.prefix(keys.books.count)
        var books = "code,title\n"
        var links = "book_code,genres_name\n"
        var reviews = "stars,book_code\n"
        for (index, title) in titles.enumerated() {
            books += "\(keys.books[index]),\(title)\n"
            links += "\(keys.links[index]),\(index % 2 == 0 ? "Science" : "Fiction")\n"
            reviews += "\(index + 1),\(keys.links[index])\n"
        }
        var line = titles.count + 1
        var absentLine = 0, invalidLine = 0
        if let absent = keys.absent {
            links += "\(absent),Science\n"
            line += 1
            absentLine = line
        }
        if let invalid = keys.invalid {
            links += "\(invalid.text),Fiction\n"
            line += 1
            invalidLine = line
            reviews += "\(titles.count + 1),\(invalid.text)\n"
        }
        let model = Self.model(keyType: keys.type)
        let built = try Self.build(
            ["books.csv": books, "genres.csv": "name\nScience\nFiction\n", "book_genres.csv": links, "reviews.csv": reviews],
            model: model, layout: layout, in: folder)

        let even = titles.enumerated().filter { $0.offset % 2 == 0 }.map(\.element).sorted()
        let odd = titles.enumerated().filter { $0.offset % 2 == 1 }.map(\.element).sorted()
        #expect(try Self.titles("ANY genres.name == 'Science'", in: built, model: model, layout: layout) == even)
        #expect(try Self.titles("ANY genres.name == 'Fiction'", in: built, model: model, layout: layout) == odd)
        #expect(try Self.titles("reviews.@count == 1", in: built, model: model, layout: layout) == titles.sorted())
        let source = try #require(built.sources.first { $0.entity == "Book.genres" })
        #expect(source.rowsLoaded == titles.count)

        let rejects = try Self.rejects(built)
        #expect(rejects.count == (keys.absent == nil ? 0 : 1) + (keys.invalid == nil ? 0 : 2), "\(rejects)")
        if let absent = keys.absent {
            #expect(
                rejects.contains {
                    $0.contains("book_genres.csv,\(absentLine),1,book_code,") && $0.contains("no Book with code \"\"\(absent)\"\" in")
                }, "\(rejects)")
        }
        if let invalid = keys.invalid {
            let expected =
                "book_genres.csv,\(invalidLine),1,book_code,\"book_code gives Book.code (\(keys.type)): \"\"\(invalid.text)\"\" \(invalid.expected)"
            #expect(rejects.contains { $0.contains(expected) }, "\(rejects)")
            // The same key in a to-one's column of an entity's own file.
            let inReviews =
                "reviews.csv,\(titles.count + 2),2,book_code,\"Review.book: book_code gives Book.code (\(keys.type)): \"\"\(invalid.text)\"\" \(invalid.expected)"
            #expect(rejects.contains { $0.contains(inReviews) }, "\(rejects)")
        }
    }

    /// A compound key (a UUID and a number) found through other forms of both parts.
    @Test(arguments: [StoreLayout.plain, .coreData])
    func aCompoundKeyOfAUUIDAndANumber(_ layout: StoreLayout) throws {
        let folder = TemporaryDirectory()
        let model = Self.model(keyType: "UUID", editionType: "Integer 16")
        let uuid = "6f0c7c1e-8a2b-4c3d-9e4f-0a1b2c3d4e5f"
        let built = try Self.build(
            [
                "books.csv": "code,edition,title\n\(uuid),1,Dune\n\(uuid),2,Emma\n",
                "genres.csv": "name\nScience\nFiction\n",
                "book_genres.csv":
                    "book_code,book_edition,genres_name\n\(uuid.uppercased()),02,Science\n\(uuid.uppercased()),3,Science\n\(uuid),x,Fiction\n",
                "reviews.csv": "stars,book_code,book_edition\n5,\(uuid.uppercased()),+1\n",
            ],
            model: model, layout: layout, in: folder)
        #expect(try Self.titles("ANY genres.name == 'Science'", in: built, model: model, layout: layout) == ["Emma"])
        #expect(try Self.titles("reviews.@count == 1", in: built, model: model, layout: layout) == ["Dune"])
        let rejects = try Self.rejects(built)
        #expect(rejects.count == 2, "\(rejects)")
        #expect(
            rejects.contains { $0.contains("book_genres.csv,3,1,book_code,") && $0.contains("no Book with (code, edition)") }, "\(rejects)")
        #expect(
            rejects.contains {
                $0.contains(
                    "book_genres.csv,4,2,book_edition,\"book_edition gives Book.edition (Integer 16): \"\"x\"\" is not a whole number")
            }, "\(rejects)")
    }

    /// Rows of the entity's own file that repeat a compound key in another form are rejected
    /// naming both lines, whatever the types: the group SQLite finds is matched to the file's
    /// lines through the same keys.
    @Test(arguments: [StoreLayout.plain, .coreData])
    func aRepeatedCompoundKeyInAnotherFormNamesBothLines(_ layout: StoreLayout) throws {
        let folder = TemporaryDirectory()
        let model = Self.model(keyType: "UUID", editionType: "Double")
        let uuid = "6f0c7c1e-8a2b-4c3d-9e4f-0a1b2c3d4e5f"
        let built = try Self.build(
            [
                "books.csv": "code,edition,title\n\(uuid),1e-7,Dune\n\(uuid),2,Emma\n\(uuid.uppercased()),0.0000001,Solaris\n",
                "genres.csv": "name\nScience\n", "reviews.csv": "stars\n5\n",
            ],
            model: model, layout: layout, in: folder)
        #expect(try Self.titles("TRUEPREDICATE", in: built, model: model, layout: layout) == ["Dune", "Emma"])
        let rejects = try Self.rejects(built)
        #expect(rejects.count == 1, "\(rejects)")
        #expect(
            rejects.first?.contains("books.csv,4,1,code,\"duplicate Book.(code, edition)") == true
                && rejects.first?.contains("line 2 has it already") == true, "\(rejects)")
    }
}
