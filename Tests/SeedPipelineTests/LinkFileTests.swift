import Foundation
import GRDB
import SeedModel
import SeedPipeline
import SeedStore
import SeedTestSupport
import Testing

/// Many-to-many relationships fed from link files: one row per link, each side named by its key.
@Suite("Link files")
struct LinkFileTests {
    let directory = TemporaryDirectory()

    /// Books with genres (many-to-many), similar books (self-referential) and ordered chapters.
    static let modelJSON = """
        {"name": "Library", "versionIdentifiers": ["1"],
         "entities": [
          {"name": "Book", "attributes": [{"name": "uuid", "type": "String", "optional": false}, {"name": "title", "type": "String"}],
           "uniquenessConstraints": [["uuid"]],
           "relationships": [
             {"name": "genres", "destination": "Genre", "inverse": "books", "toMany": true},
             {"name": "chapters", "destination": "Chapter", "inverse": "books", "toMany": true, "ordered": true},
             {"name": "similar", "destination": "Book", "inverse": "similarOf", "toMany": true},
             {"name": "similarOf", "destination": "Book", "inverse": "similar", "toMany": true}]},
          {"name": "Genre", "attributes": [{"name": "name", "type": "String", "optional": false}, {"name": "shelf", "type": "Integer 16", "optional": false}],
           "uniquenessConstraints": [["name", "shelf"]],
           "relationships": [{"name": "books", "destination": "Book", "inverse": "genres", "toMany": true}]},
          {"name": "Chapter", "attributes": [{"name": "code", "type": "String", "optional": false}], "uniquenessConstraints": [["code"]],
           "relationships": [{"name": "books", "destination": "Book", "inverse": "chapters", "toMany": true}]}
         ]}
        """

    static let entityFiles = [
        "books.csv": "uuid,title\nb1,Dune\nb2,Emma\nb3,Solaris\n",
        "genres.csv": "name,shelf\nScience,1\nFiction,2\nClassic,3\n",
        "chapters.csv": "code\nc1\nc2\nc3\n",
    ]

    /// The default links: genres by compound key parts, similar books, chapters in a chosen order.
    static let linkFiles = [
        "book_genres.csv": "book_uuid,genres_name,genres_shelf\nb1,Science,1\nb1,Fiction,2\nb2,Classic,3\nb3,Science,1\nb3,Fiction,2\n",
        "books_similar.csv": "book_uuid,similar_uuid\nb1,b3\nb3,b1\nb2,b1\n",
        // Singular column names, and an explicit order for b1's chapters.
        "book_chapters.csv": "Book UUID,chapter-code,chapters_order\nb1,c1,2\nb1,c2,3\nb1,c3,1\nb2,c1,\n",
    ]

    private func build(_ layout: StoreLayout, links: [String: String] = linkFiles, maxRejects: Int = 0, sources: [String: String] = [:])
        throws -> (BuiltStore, Model)
    {
        let modelPath = directory.write("model.json", Self.modelJSON)
        for (name, text) in Self.entityFiles.merging(links, uniquingKeysWith: { $1 }) { directory.write("in/\(name)", text) }
        var options = BuildOptions(files: [directory.path("in/books.csv")])
        options.model = modelPath
        options.format = layout
        options.maxRejects = maxRejects
        options.sources = sources
        options.outputDirectory = directory.path("out-\(layout.name)")
        var (request, _) = try options.resolve(project: nil)
        request.buildTime = Date(timeIntervalSince1970: 1_700_000_000)
        return (try SeedBuilder().build(request), try ModelLoader.load(modelPath))
    }

    /// The books a predicate selects, by uuid, through the runtime opening the store read-only.
    private func books(_ predicate: String, in built: BuiltStore, model: Model, layout: StoreLayout) throws -> [String] {
        let coordinator = StoreCoordinator(model: model)
        try coordinator.addStore(
            StoreDescription(type: .sqlite, url: URL(fileURLWithPath: built.storePath), isReadOnly: true, storeLayout: layout))
        let context = ObjectContext(coordinator: coordinator)
        let found = try context.fetch(
            FetchRequest(entity: "Book", predicate: try FetchPredicate(predicate), sortDescriptors: [FetchSortDescriptor("uuid")]))
        return found.compactMap { $0["uuid"].stringValue }
    }

    @Test(arguments: [StoreLayout.plain, .coreData])
    func linksAnswerToManyPredicates(_ layout: StoreLayout) throws {
        let (built, model) = try build(layout)
        #expect(try books("ANY genres.name == 'Science'", in: built, model: model, layout: layout) == ["b1", "b3"])
        #expect(try books("genres.@count == 1", in: built, model: model, layout: layout) == ["b2"])
        #expect(try books("ANY chapters.code == 'c1'", in: built, model: model, layout: layout) == ["b1", "b2"])
        // The self-referential pair, both ways.
        #expect(try books("similar.@count > 0", in: built, model: model, layout: layout) == ["b1", "b2", "b3"])
        #expect(try books("similarOf.@count > 0", in: built, model: model, layout: layout) == ["b1", "b3"])
        #expect(try books("ANY similarOf.title == 'Emma'", in: built, model: model, layout: layout) == ["b1"])
        // Each link file is a source in the metadata, with its rows.
        let genres = try #require(built.sources.first { $0.entity == "Book.genres" })
        #expect(genres.rowsRead == 5 && genres.rowsLoaded == 5 && genres.rowsRejected == 0 && genres.sha256.count == 64)
    }

    /// The ordered relationship keeps the order column's order, then the file's.
    @Test(arguments: [StoreLayout.plain, .coreData])
    func orderedLinksKeepTheirOrder(_ layout: StoreLayout) throws {
        let (built, model) = try build(layout)
        let coordinator = StoreCoordinator(model: model)
        try coordinator.addStore(
            StoreDescription(type: .sqlite, url: URL(fileURLWithPath: built.storePath), isReadOnly: true, storeLayout: layout))
        let context = ObjectContext(coordinator: coordinator)
        let dune = try #require(try context.fetch(FetchRequest(entity: "Book", predicate: try FetchPredicate("uuid == 'b1'"))).first)
        #expect(try dune.objects(forRelationship: "chapters").map { $0["code"].stringValue } == ["c3", "c1", "c2"])
    }

    /// Unknown keys, pairs given twice, empty keys and bad order values are rejected rows naming the line.
    @Test func badLinksAreRejectedRows() throws {
        var links = Self.linkFiles.filter { $0.key != "books_similar.csv" }
        links["book_genres.csv"] =
            "book_uuid,genres_name,genres_shelf\nb1,Science,1\nb9,Science,1\nb1,Poetry,4\nb1,Science,1\n,Fiction,2\nb2,Classic,x\n"
        links["book_chapters.csv"] = "book_uuid,chapter_code,chapters_order\nb1,c1,first\n"
        let (built, _) = try build(.plain, links: links, maxRejects: 10)
        let rejects = try String(contentsOfFile: try #require(built.rejectsPath), encoding: .utf8)
        // (The rejects file is CSV: a quote inside a field is doubled.)
        #expect(rejects.contains("no Book with uuid \"\"b9\"\""), "\(rejects)")
        #expect(rejects.contains("no Genre with (name, shelf) \"\"Poetry, 4\"\""), "\(rejects)")
        #expect(rejects.contains("given twice: line 2 has it already"), "\(rejects)")
        #expect(rejects.contains("book_uuid is empty"), "\(rejects)")
        #expect(
            rejects.contains("genres_shelf gives Genre.shelf (Integer 16): \"\"x\"\" is not a whole number; write digits"), "\(rejects)")
        #expect(rejects.contains("must be a whole number"), "\(rejects)")
        #expect(built.rejected == 6)
        #expect(built.sources.first { $0.entity == "Book.genres" }?.rowsLoaded == 1)
    }

    /// Named outright, the file feeds the relationship whatever its name; the inverse's name works too.
    @Test func explicitSourcesAndEitherSide() throws {
        var links = Self.linkFiles.filter { $0.key == "book_chapters.csv" }
        links["tags.csv"] = "genre_name,genre_shelf,books_uuid\nScience,1,b2\n"
        let (built, model) = try build(.plain, links: links, sources: ["Genre.books": directory.path("in/tags.csv")])
        #expect(try books("ANY genres.name == 'Science'", in: built, model: model, layout: .plain) == ["b2"])
    }

    @Test func mistakesAreNamed() throws {
        // A link file for a relationship a column feeds, a missing key column, an extra column, two files for one pair.
        let cases: [([String: String], [String: String], String)] = [
            ([:], ["Book.title": "in/x.csv"], "Book has no relationship title"),
            (["book_genres.csv": "book_uuid,genres_name\nb1,Science\n"], [:], "need Genre's key: a column genres_name and genres_shelf"),
            (
                ["book_genres.csv": "book_uuid,genres_name,genres_shelf,note\nb1,Science,1,x\n"], [:],
                "note feeds nothing in the links of Book.genres"
            ),
            (
                ["book_genres.csv": Self.linkFiles["book_genres.csv"]!, "genres_books.csv": "genre_name,genre_shelf,book_uuid\n"], [:],
                "feed the links of"
            ),
        ]
        for (links, sources, message) in cases {
            let folder = TemporaryDirectory()
            let modelPath = folder.write("model.json", Self.modelJSON)
            for (name, text) in Self.entityFiles.merging(links, uniquingKeysWith: { $1 }) { folder.write("in/\(name)", text) }
            folder.write("in/x.csv", "a\n1\n")
            var options = BuildOptions(files: [folder.path("in/books.csv")])
            options.model = modelPath
            options.format = .plain
            options.sources = sources.mapValues { folder.path($0) }
            options.outputDirectory = folder.path("out")
            do {
                let (request, _) = try options.resolve(project: nil)
                _ = try SeedBuilder().build(request)
                Issue.record("built despite: \(message)")
            } catch {
                #expect("\(error)".contains(message), "\(error)")
            }
        }
    }

    /// A to-many relationship's name as a column of the entity's own file says how to feed it.
    @Test func aToManyColumnInTheEntityFileNamesTheLinkFile() throws {
        var files = Self.entityFiles
        files["books.csv"] = "uuid,title,genres\nb1,Dune,Science\n"
        let modelPath = directory.write("model.json", Self.modelJSON)
        for (name, text) in files { directory.write("in/\(name)", text) }
        var options = BuildOptions(files: [directory.path("in/books.csv")])
        options.model = modelPath
        options.format = .plain
        options.outputDirectory = directory.path("out")
        let (request, _) = try options.resolve(project: nil)
        let error = #expect(throws: IngestError.self) { try SeedBuilder().build(request) }
        #expect(
            error?.message.contains("Book.genres is a to-many relationship, which a link file feeds") == true,
            "\(String(describing: error))")
        #expect(error?.message.contains("books_genres.csv") == true && error?.message.contains("--source Book.genres=FILE") == true)
    }

    /// An ordered one-to-many: Core Data's layout takes it from the to-one column in the
    /// destination's file (in its order); the plain layout keeps it in a join table, fed by a link
    /// file in which each destination has one owner.
    @Test func anOrderedOneToManyInEitherLayout() throws {
        let model = """
            {"name": "L", "versionIdentifiers": ["1"], "entities": [
              {"name": "Book", "attributes": [{"name": "uuid", "type": "String", "optional": false}], "uniquenessConstraints": [["uuid"]],
               "relationships": [{"name": "parts", "destination": "Part", "inverse": "book", "toMany": true, "ordered": true}]},
              {"name": "Part", "attributes": [{"name": "code", "type": "String", "optional": false}], "uniquenessConstraints": [["code"]],
               "relationships": [{"name": "book", "destination": "Book", "inverse": "parts"}]}]}
            """
        func build(_ layout: StoreLayout, parts: String, links: String?) throws -> BuiltStore {
            let folder = directory.path("\(layout.name)")
            let modelPath = directory.write("\(layout.name)/model.json", model)
            directory.write("\(layout.name)/in/books.csv", "uuid\nb1\nb2\n")
            directory.write("\(layout.name)/in/parts.csv", parts)
            if let links { directory.write("\(layout.name)/in/books_parts.csv", links) }
            var options = BuildOptions(files: [folder + "/in/books.csv"])
            options.model = modelPath
            options.format = layout
            options.maxRejects = 5
            options.outputDirectory = folder + "/out"
            let (request, _) = try options.resolve(project: nil)
            return try SeedBuilder().build(request)
        }
        func partsOfFirstBook(_ built: BuiltStore, _ layout: StoreLayout) throws -> [String?] {
            let coordinator = StoreCoordinator(model: try ModelLoader.load(json: Data(model.utf8), source: ModelSource(file: "L.json")))
            try coordinator.addStore(
                StoreDescription(type: .sqlite, url: URL(fileURLWithPath: built.storePath), isReadOnly: true, storeLayout: layout))
            let context = ObjectContext(coordinator: coordinator)
            let book = try #require(try context.fetch(FetchRequest(entity: "Book", predicate: try FetchPredicate("uuid == 'b1'"))).first)
            return try withExtendedLifetime(context) { try book.objects(forRelationship: "parts").map { $0["code"].stringValue } }
        }
        let coreData = try build(.coreData, parts: "code,book_uuid\np3,b1\np1,b1\np2,b1\np4,b2\n", links: nil)
        let coreDataParts = try partsOfFirstBook(coreData, .coreData)
        #expect(coreDataParts == ["p3", "p1", "p2"])
        let plain = try build(.plain, parts: "code\np3\np1\np2\np4\n", links: "book_uuid,parts_code\nb1,p3\nb1,p1\nb1,p2\nb2,p4\nb2,p1\n")
        let plainParts = try partsOfFirstBook(plain, .plain)
        #expect(plainParts == ["p3", "p1", "p2"])
        let rejects = try String(contentsOfFile: try #require(plain.rejectsPath), encoding: .utf8)
        #expect(rejects.contains("Part.book is to-one, and line 3 links this Part already"), "\(rejects)")
        // The to-one's column in the plain layout says where it goes instead.
        let error = #expect(throws: IngestError.self) { try build(.plain, parts: "code,book_uuid\np1,b1\n", links: nil) }
        #expect(
            error?.message.contains("Part.book is kept with the ordered Book.parts in the plain layout") == true,
            "\(String(describing: error))")
    }

    /// The issue's whole case: a seed with a many-to-many and a self-referential many-to-many built
    /// from CSV and link files, opened read-only beside an in-memory store whose reading sessions
    /// point at seed books through a transient relationship (nothing crosses stores on disk).
    @Test(arguments: [StoreLayout.plain, .coreData])
    func aSeedWithLinksBesideAnInMemoryStoreWithTransientLinks(_ layout: StoreLayout) throws {
        // One model with two configurations, as the app's: the seed's entities, and the in-memory one.
        let json = Self.modelJSON
            .replacingOccurrences(
                of: #""entities": ["#,
                with:
                    #""configurations": [{"name": "Seed", "entities": ["Book", "Genre", "Chapter"]}, {"name": "Memory", "entities": ["ReadingSession"]}], "entities": ["#
            )
            .replacingOccurrences(
                of: #"{"name": "Chapter","#,
                with:
                    #"{"name": "ReadingSession", "attributes": [{"name": "minutes", "type": "Integer 32"}], "relationships": [{"name": "book", "destination": "Book", "transient": true}]}, {"name": "Chapter","#
            )
        let merged = try ModelLoader.load(json: Data(json.utf8), source: ModelSource(file: "Library.json"))
        try merged.validated()
        let modelPath = directory.write("model-sessions.json", json)
        for (name, text) in Self.entityFiles.merging(Self.linkFiles, uniquingKeysWith: { $1 }) { directory.write("in/\(name)", text) }
        var options = BuildOptions(files: [directory.path("in/books.csv")])
        options.model = modelPath
        options.configuration = "Seed"
        options.format = layout
        options.outputDirectory = directory.path("out-sessions-\(layout.name)")
        let (request, _) = try options.resolve(project: nil)
        let built = try SeedBuilder().build(request)
        let coordinator = StoreCoordinator(model: merged)
        try coordinator.addStore(
            StoreDescription(
                type: .sqlite, url: URL(fileURLWithPath: built.storePath), configuration: "Seed", isReadOnly: true, storeLayout: layout))
        try coordinator.addStore(StoreDescription(type: .inMemory, configuration: "Memory"))
        let context = ObjectContext(coordinator: coordinator)
        let science = try context.fetch(
            FetchRequest(
                entity: "Book", predicate: try FetchPredicate("ANY genres.name == 'Science'"),
                sortDescriptors: [FetchSortDescriptor("uuid")]))
        #expect(science.map { $0["uuid"].stringValue } == ["b1", "b3"])
        #expect(try context.fetch(FetchRequest(entity: "Book", predicate: try FetchPredicate("similarOf.@count > 0"))).count == 2)
        let session = try context.insert(entity: "ReadingSession")
        session["minutes"] = 25
        try session.setObject(science[0], forRelationship: "book")
        try context.save()
        #expect(try session.object(forRelationship: "book")?["uuid"] == "b1", "kept in the context after the save")
        context.reset()
        let again = try #require(try context.fetch(FetchRequest(entity: "ReadingSession")).first)
        #expect(try again.object(forRelationship: "book") == nil, "transient: nil once the context is reset")
    }
}
