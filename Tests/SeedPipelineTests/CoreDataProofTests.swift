// Apple's framework itself opening a seed seedbuild built: compiled only where Core Data exists
// (a Mac); Linux CI cannot run it. docs/coredata.md says how to run it and what it proves.
#if canImport(CoreData)
    import CoreData
    import Foundation
    import SeedModel
    import SeedPipeline
    import SeedStore
    import SeedTestSupport
    import Testing

    @Suite("Core Data opens the seed (macOS only)")
    struct CoreDataProofTests {
        private let directory = TemporaryDirectory()

        /// The sample models as Core Data loads them: an `NSManagedObjectModel` per `.xcdatamodeld`,
        /// compiled here with `xcrun momc`, then merged as an app merges its models.
        private func appleModel(_ bundle: String) throws -> NSManagedObjectModel {
            let output = directory.path(URL(fileURLWithPath: bundle).deletingPathExtension().lastPathComponent + ".momd")
            let momc = Process()
            momc.executableURL = URL(fileURLWithPath: "/usr/bin/xcrun")
            momc.arguments = ["momc", repositoryPath(bundle), output]
            try momc.run()
            momc.waitUntilExit()
            #expect(momc.terminationStatus == 0, "xcrun momc \(bundle)")
            return try #require(NSManagedObjectModel(contentsOf: URL(fileURLWithPath: output)))
        }

        @Test func appleAddsTheBuiltSeedReadOnlyWithNoMigration() throws {
            let merged = try #require(
                NSManagedObjectModel(byMerging: [
                    appleModel("schemas/PostCodesModel.xcdatamodeld"), appleModel("schemas/UserModel.xcdatamodeld"),
                ]))
            // Our hashes are Apple's, entity by entity.
            let ours = try Model.merged([
                ModelLoader.load(repositoryPath("schemas/PostCodesModel.xcdatamodeld")),
                ModelLoader.load(repositoryPath("schemas/UserModel.xcdatamodeld")),
            ])
            #expect(merged.entityVersionHashesByName == ours.entityVersionHashes)

            let seedURL = URL(fileURLWithPath: try SampleSeed.build(into: directory.path("seed")).storePath)

            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: merged)
            try coordinator.addPersistentStore(
                ofType: NSSQLiteStoreType, configurationName: "PostCodesConf", at: seedURL,
                options: [
                    NSReadOnlyPersistentStoreOption: true, NSMigratePersistentStoresAutomaticallyOption: false,
                    NSInferMappingModelAutomaticallyOption: false,
                ])
            try coordinator.addPersistentStore(
                ofType: NSSQLiteStoreType, configurationName: "UserConf", at: directory.url.appendingPathComponent("User.sqlite"),
                options: nil)
            let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator

            let request = NSFetchRequest<NSManagedObject>(entityName: "Postcode")
            request.predicate = NSPredicate(format: "postcode BEGINSWITH %@", "CT")
            let canterbury = try context.fetch(request)
            #expect(canterbury.count == 11)
            #expect((canterbury[0].value(forKey: "county") as? NSManagedObject)?.value(forKey: "name") != nil)

            let rating = NSEntityDescription.insertNewObject(forEntityName: "Rating", into: context)
            rating.setValue(canterbury[0].value(forKey: "postcode"), forKey: "postcode")
            rating.setValue(4, forKey: "rating")
            rating.setValue(Date(), forKey: "created")
            try context.save()
            context.refresh(canterbury[0], mergeChanges: false)
            #expect((canterbury[0].value(forKey: "ratings") as? [NSManagedObject])?.count == 1)
        }
    }
#endif
