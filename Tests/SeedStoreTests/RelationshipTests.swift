import Foundation
import SeedModel
import SeedStore
import SeedTestSupport
import Testing

@Suite("Relationships within a store: ordered, one-to-one, delete rules")
struct RelationshipTests {
    private let modelJSON = """
        {"name": "Music", "entities": [
          {"name": "Playlist", "attributes": [{"name": "title", "type": "String", "optional": false}],
           "relationships": [{"name": "songs", "destination": "Song", "inverse": "playlists", "toMany": true, "ordered": true, "deleteRule": "Deny"}]},
          {"name": "Song", "attributes": [{"name": "title", "type": "String", "optional": false}],
           "relationships": [{"name": "playlists", "destination": "Playlist", "inverse": "songs", "toMany": true},
                             {"name": "lyrics", "destination": "Lyrics", "inverse": "song", "deleteRule": "Cascade"}]},
          {"name": "Lyrics", "attributes": [{"name": "text", "type": "String"}],
           "relationships": [{"name": "song", "destination": "Song", "inverse": "lyrics"}]}
        ]}
        """

    @Test(arguments: [StoreType.sqlite, .inMemory, .xml])
    func orderedOneToOneAndDeleteRules(type: StoreType) throws {
        let directory = TemporaryDirectory()
        let model = try ModelLoader.load(json: Data(modelJSON.utf8), source: ModelSource(file: "music.json"))
        let url = type == .inMemory ? nil : directory.url("music.\(type.rawValue)")
        let coordinator = StoreCoordinator(model: model)
        try coordinator.addStore(StoreDescription(type: type, url: url))
        let context = ObjectContext(coordinator: coordinator)
        let playlist = try context.insert(entity: "Playlist")
        playlist["title"] = "Road trip"
        var songs: [ManagedObject] = []
        for title in ["Zebra", "Alpha", "Mango"] {
            let song = try context.insert(entity: "Song")
            song["title"] = .text(title)
            songs.append(song)
            try playlist.addObject(song, toRelationship: "songs")
        }
        let lyrics = try context.insert(entity: "Lyrics")
        lyrics["text"] = "la la"
        try songs[0].setObject(lyrics, forRelationship: "lyrics")
        try context.save()

        let reader = ObjectContext(coordinator: coordinator)
        let stored = try #require(try reader.fetch(FetchRequest(entity: "Playlist")).first)
        #expect(
            try stored.objects(forRelationship: "songs").map { try $0.string("title") } == ["Zebra", "Alpha", "Mango"],
            "an ordered relationship keeps its order")
        let zebra = try #require(try reader.fetch(FetchRequest(entity: "Song", predicate: FetchPredicate("title == 'Zebra'"))).first)
        #expect(try zebra.object(forRelationship: "lyrics")?.string("text") == "la la")
        let storedLyrics = try #require(try zebra.object(forRelationship: "lyrics"))
        #expect(try storedLyrics.object(forRelationship: "song")?.string("title") == "Zebra", "the inverse of a one-to-one reads back")
        #expect(try zebra.objects(forRelationship: "playlists").map { try $0.string("title") } == ["Road trip"])

        // Deny: a playlist that still has songs cannot be deleted.
        reader.delete(stored)
        let denied = try #require(throws: StoreError.self) { try reader.save() }
        #expect(denied.description.contains("Deny") && denied.description.contains("songs"))
        reader.rollback()

        // Cascade: deleting a song deletes its lyrics; the playlist keeps the other songs in order.
        reader.delete(zebra)
        try reader.save()
        let after = ObjectContext(coordinator: coordinator)
        #expect(try after.count(FetchRequest(entity: "Lyrics")) == 0)
        let remaining = try #require(try after.fetch(FetchRequest(entity: "Playlist")).first)
        #expect(try remaining.objects(forRelationship: "songs").map { try $0.string("title") } == ["Alpha", "Mango"])

        // Once empty, the playlist can go.
        for song in try remaining.objects(forRelationship: "songs") { try remaining.removeObject(song, fromRelationship: "songs") }
        try after.save()
        after.delete(remaining)
        try after.save()
        #expect(try ObjectContext(coordinator: coordinator).count(FetchRequest(entity: "Playlist")) == 0)
        #expect(try ObjectContext(coordinator: coordinator).count(FetchRequest(entity: "Song")) == 2)
    }
}
