import ArgumentParser
import Foundation
import SeedModel
import SeedPipeline
import SeedStore

/// `seedbuild query --store PATH[:CONFIGURATION][:ro] … --model MODEL … ENTITY`: fetch objects across stores.
struct QueryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Open stores under the merged models and print the objects of one entity, with fetched properties resolved.",
        discussion: """
            Example: the sample seed read-only beside a user store holding ratings:
              seedbuild query --store build/seed/postcodes.sqlite:PostCodesConf:ro --store user.sqlite:UserConf \\
                --model schemas/PostCodesModel.xcdatamodeld --model schemas/UserModel.xcdatamodeld \\
                Postcode --where "postcode BEGINSWITH 'CT'" --fetched ratings
            """)

    @Option(
        name: .customLong("store"),
        help: ArgumentHelp(
            "A store to add: PATH[:CONFIGURATION][:ro] (repeatable). Without a configuration, the one in its metadata.",
            valueName: "path[:configuration][:ro]"))
    var stores: [String] = []

    @Option(
        name: .customLong("model"),
        help:
            "A model to merge: .xcdatamodeld, .xcdatamodel, JSON, .momd or .mom (repeatable; default: the first store's own, as seedbuild embedded it or Core Data cached it)."
    )
    var models: [String] = []

    @Argument(help: "The entity to fetch.")
    var entity: String

    @Option(
        name: .customLong("where"),
        help: ArgumentHelp("A predicate in NSPredicate format, such as \"postcode BEGINSWITH[c] 'ct'\".", valueName: "predicate"))
    var predicate: String?

    @Option(
        name: .customLong("arg"),
        help: ArgumentHelp("A value for the next placeholder of --where (%@, %K, %d, %f), in order (repeatable).", valueName: "value"))
    var arguments: [String] = []

    @Option(name: .customLong("var"), help: ArgumentHelp("A value for $NAME in --where (repeatable).", valueName: "name=value"))
    var variables: [String] = []

    @Option(name: .customLong("sort"), help: ArgumentHelp("Sort key, ascending or :desc (repeatable).", valueName: "key[:desc]"))
    var sort: [String] = []

    @Option(help: "Print at most this many objects.")
    var limit: Int?

    @Option(
        name: .customLong("fetched"), help: ArgumentHelp("A fetched property to resolve for each object (repeatable).", valueName: "name"))
    var fetched: [String] = []

    @Flag(help: "Print JSON Lines (the default when standard output is not a terminal).")
    var json = false

    func validate() throws {
        if stores.isEmpty { throw ValidationError("give at least one --store") }
        for key in sort where FetchSortDescriptor(argument: key) == nil {
            throw ValidationError("--sort takes KEY, KEY:asc or KEY:desc, got \"\(key)\"")
        }
        if let limit, limit < 0 { throw ValidationError("--limit must be 0 or more") }
        if predicate == nil, !arguments.isEmpty || !variables.isEmpty {
            throw ValidationError("--arg and --var fill placeholders of --where; give --where too")
        }
        var names: Set<String> = []
        for variable in variables {
            guard let equals = variable.firstIndex(of: "="), equals != variable.startIndex else {
                throw ValidationError("--var takes NAME=VALUE, such as --var PREFIX=CT, got \"\(variable)\"")
            }
            let name = String(variable[..<equals])
            guard names.insert(name).inserted else { throw ValidationError("--var \(name) is given twice") }
        }
    }

    func run() throws {
        let result = try CommandFailure.exitOnError {
            var query = StoreQuery(entity: entity, models: models)
            query.stores = try stores.map { argument throws(IngestError) in try StoreQuery.StoreArgument(argument) }
            query.predicate = predicate
            query.arguments = arguments
            query.variables = Dictionary(
                uniqueKeysWithValues: variables.map { variable in
                    let equals = variable.firstIndex(of: "=")!
                    return (String(variable[..<equals]), String(variable[variable.index(after: equals)...]))
                })
            query.sortDescriptors = sort.compactMap(FetchSortDescriptor.init(argument:))
            query.limit = limit
            query.fetchedProperties = fetched
            return try query.run()
        }
        if json || isatty(STDOUT_FILENO) != 1 {
            print(result.jsonLines, terminator: "")
        } else {
            print(result.table)
        }
    }
}
