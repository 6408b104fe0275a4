import Foundation
import GRDB
import SeedModel
import SeedStore

extension Verifier {
    /// Step 3 for one seed model version: compatible, lightweight (migrated on a scratch copy and
    /// checked), or refused with the reasons.
    func checkModel(
        _ model: Model, userModels: [Model], store: String, metadata: StoreMetadata, scratch: String, labelUserModels: Bool = false
    ) throws -> VerificationReport.ModelResult {
        func label(_ model: Model) -> String {
            model.source?.version
                ?? (model.versionIdentifiers.isEmpty ? model.name : "\(model.name) \(model.versionIdentifiers.joined(separator: ","))")
        }
        let version = ([model] + (labelUserModels ? userModels : [])).map(label).joined(separator: " + ")
        func refused(_ reasons: [String]) -> VerificationReport.ModelResult {
            VerificationReport.ModelResult(version: version, verdict: .refused, details: reasons)
        }
        // The app's coordinator uses the merged model, and Core Data compares every entity of it.
        // A store Core Data wrote names none: it holds the Default configuration, every entity.
        let configuration = metadata.configuration ?? SeedModel.Configuration.defaultName
        let merged: Model
        do {
            merged = try Model.merged([model] + userModels)
            try merged.validated(requireFetchedPropertyTargets: !userModels.isEmpty)
            _ = try merged.restricted(to: configuration)
        } catch {
            return refused(error.errors.map(\.description))
        }
        let embedded = try? Migrator.embeddedModel(of: store).model
        let differences = metadata.hashDifferences(from: merged, embeddedModel: embedded)
        if differences.isEmpty {
            let (details, problems) = checkCrossStore(seed: store, configuration: configuration, seedModel: model, userModels: userModels)
            guard problems.isEmpty else { return refused(problems) }
            return VerificationReport.ModelResult(version: version, verdict: .compatible, details: details)
        }
        // The seed's own entities are what this model says; only the user model moved on.
        if metadata.seedEntityDifferences(from: merged, configuration: configuration)?.isEmpty == true {
            let restamped = (scratch as NSString).appendingPathComponent("restamped-\(UUID().uuidString).sqlite")
            do throws(StoreError) {
                try StoreRestamp.restamp(store, for: merged, output: restamped, outputMode: 0o444)
            } catch {
                return refused([error.message])
            }
            let (details, problems) = checkCrossStore(
                seed: restamped, configuration: configuration, seedModel: model, userModels: userModels)
            guard problems.isEmpty else { return refused(problems) }
            let note =
                "version hashes differ outside the seed (\(differences.map(\.entity).joined(separator: ", "))): stamped for this model on a scratch copy"
            return VerificationReport.ModelResult(version: version, verdict: .restamped, details: [note] + details)
        }
        let migrated = (scratch as NSString).appendingPathComponent("migrated-\(UUID().uuidString).sqlite")
        do {
            let result = try Migrator().migrate(store, to: merged, output: migrated)
            var details = ["version hashes differ: " + differences.map(\.description).joined(separator: ", ")]
            details += result.plan.changes.map(\.description) + result.plan.warnings.map { "warning: \($0)" }
            details += result.droppedLinks.sorted { $0.key < $1.key }.map {
                "\($0.value) links of \($0.key) dropped (to-many became to-one)"
            }
            let mismatches = try renamedValueMismatches(result.plan, original: store, migrated: migrated)
            guard mismatches.isEmpty else { return refused(mismatches) }
            let (crossDetails, problems) = checkCrossStore(
                seed: migrated, configuration: configuration, seedModel: model, userModels: userModels)
            guard problems.isEmpty else { return refused(problems) }
            return VerificationReport.ModelResult(version: version, verdict: .lightweight, details: details + crossDetails)
        } catch let refusal as MigrationRefusal {
            return refused(refusal.messages)
        } catch let error as StoreError {
            return refused([error.message])
        }
    }

    /// Confirms every renamed attribute's values arrived under the new name, row by row.
    private func renamedValueMismatches(_ plan: MigrationPlan, original: String, migrated: String) throws -> [String] {
        let renames = plan.changes.filter { $0.kind == .renameAttribute }
        guard !renames.isEmpty else { return [] }
        // Either layout: tables and columns are named by each store's own schema.
        let original = original
        let oldSchema = try StoreDatabase.openReadOnly(original).read { db in try StoreDatabase.embeddedSchema(db, path: original) }
        let queue = try StoreDatabase.openReadOnly(migrated)
        defer { try? queue.close() }
        let newSchema = try queue.read { db in try StoreDatabase.embeddedSchema(db, path: migrated) }
        var problems: [String] = []
        try queue.inDatabase { db in
            try db.execute(sql: "ATTACH DATABASE ? AS original", arguments: ["file:\(original)?mode=ro&immutable=1"])
            defer { try? db.execute(sql: "DETACH DATABASE original") }
            for change in renames {
                guard let newAttribute = change.property, let oldAttribute = change.oldName,
                    let sourceEntity = plan.sourceEntities[change.entity], let oldTable = oldSchema.table(for: sourceEntity),
                    let newTable = newSchema.table(for: change.entity)
                else { continue }
                // Rows keep their Z_PK through a migration; a table keyed by an attribute is matched on it.
                var newKey = newTable.keyColumn
                if case .attribute(let key) = oldTable.primaryKey {
                    newKey = newTable.columnName(for: plan.sourceProperties[change.entity]?.first { $0.value == key }?.key ?? key)
                }
                let differing =
                    try Int.fetchOne(
                        db,
                        sql: """
                            SELECT count(*) FROM main.\(quoteIdentifier(newTable.name)) n
                            JOIN original.\(quoteIdentifier(oldTable.name)) o ON o.\(quoteIdentifier(oldTable.keyColumn)) = n.\(quoteIdentifier(newKey))
                            WHERE n.\(quoteIdentifier(newTable.columnName(for: newAttribute))) IS NOT o.\(quoteIdentifier(oldTable.columnName(for: oldAttribute)))
                            """) ?? 0
                if differing > 0 {
                    problems.append(
                        "\(differing) values of \(sourceEntity).\(oldAttribute) did not arrive in \(change.entity).\(newAttribute)")
                }
            }
        }
        return problems
    }
}
