import Foundation
import SeedTestSupport
import Testing

@testable import SeedModel

/// Apple's "Linking Data Between Two Core Data Stores": reading sessions in an in-memory store point
/// at books of a read-only store through a transient pair.
let readingXML = """
    <entity name="Book"><attribute name="title" attributeType="String"/>
        <relationship name="sessions" optional="YES" toMany="YES" transient="YES" deletionRule="Nullify" destinationEntity="ReadingSession" inverseName="book" inverseEntity="ReadingSession"/>
    </entity>
    <entity name="ReadingSession"><attribute name="minutes" attributeType="Integer 32" defaultValueString="0" usesScalarValueType="YES"/>
        <relationship name="book" optional="YES" maxCount="1" transient="YES" deletionRule="Nullify" destinationEntity="Book" inverseName="sessions" inverseEntity="Book"/>
    </entity>
    <configuration name="Seed"><memberEntity name="Book"/></configuration>
    <configuration name="Memory"><memberEntity name="ReadingSession"/></configuration>
    """

@Suite("Model validation")
struct ModelValidationTests {
    private func diagnostics(_ body: String) throws -> [String] {
        let directory = TemporaryDirectory()
        return try loadXML(body, in: directory, name: "V").validate().map(\.description)
    }

    private func expectOne(_ body: String, _ fragment: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let found = try diagnostics(body)
        #expect(found.contains { $0.contains(fragment) }, "expected \(fragment) in \(found)", sourceLocation: sourceLocation)
    }

    @Test func validModelHasNoDiagnostics() throws {
        let directory = TemporaryDirectory()
        let model = try loadXML(shopXML, in: directory, name: "Shop")
        // Review lives in another model: only a warning until merged.
        #expect(model.validate().map(\.severity) == [.warning])
        #expect(throws: ModelError.self) { try model.validated(requireFetchedPropertyTargets: true) }
    }

    @Test func unknownDestinationAndInverse() throws {
        try expectOne(
            #"<entity name="A"><relationship name="b" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Ghost"/></entity>"#,
            "V.xcdatamodel: A.b: error: the relationship names destination entity \"Ghost\", which is not in the model")
        try expectOne(
            """
            <entity name="A"><relationship name="b" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="B" inverseName="nope" inverseEntity="B"/></entity>
            <entity name="B"><attribute name="x" attributeType="String"/></entity>
            """, "A.b: error: inverse \"nope\" is not a relationship of B")
    }

    @Test func inverseMustPointBack() throws {
        try expectOne(
            """
            <entity name="A"><relationship name="b" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="B" inverseName="as" inverseEntity="B"/></entity>
            <entity name="B"><relationship name="as" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="C"/></entity>
            <entity name="C"><attribute name="x" attributeType="String"/></entity>
            """, "A.b: warning: the inverse B.as does not point back to A.b")
    }

    @Test func relationshipAcrossConfigurationsSuggestsFetchedProperty() throws {
        try expectOne(
            """
            <entity name="Rating"><relationship name="postcode" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Postcode" inverseName="ratings" inverseEntity="Postcode"/></entity>
            <entity name="Postcode"><relationship name="ratings" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Rating" inverseName="postcode" inverseEntity="Rating"/></entity>
            <configuration name="Seed"><memberEntity name="Postcode"/></configuration>
            <configuration name="User"><memberEntity name="Rating"/></configuration>
            """,
            "Rating.postcode: error: the relationship crosses stores: Rating is in configuration User but Postcode is not; relationships cannot cross stores, so replace it with a fetched property"
        )
    }

    @Test func transientRelationshipsMayCrossConfigurations() throws {
        #expect(try diagnostics(readingXML).isEmpty)
        let persistent = try diagnostics(readingXML.replacingOccurrences(of: #" transient="YES""#, with: ""))
        #expect(persistent.contains { $0.contains("ReadingSession.book: error: the relationship crosses stores") }, "\(persistent)")
        #expect(persistent.contains { $0.contains("Book.sessions: error: the relationship crosses stores") }, "\(persistent)")
    }

    @Test func duplicateNames() throws {
        try expectOne(
            #"<entity name="A"><attribute name="x" attributeType="String"/></entity><entity name="a"><attribute name="x" attributeType="String"/></entity>"#,
            "error: duplicate entity name")
        try expectOne(
            #"<entity name="A"><attribute name="x" attributeType="String"/><attribute name="X" attributeType="Double"/></entity>"#,
            "error: duplicate property name")
        try expectOne(
            #"<entity name="A"><attribute name="z_pk" attributeType="String"/></entity>"#, "\"Z_PK\" is a column every store reserves")
        try expectOne(
            #"<entity name="A"><attribute name="Z_Entity" attributeType="String"/></entity>"#,
            "\"Z_ENTITY\" is a column every store reserves")
        try expectOne(
            #"<entity name="seed_Things"><attribute name="x" attributeType="String"/></entity>"#, "reserved for seed store bookkeeping")
    }

    @Test func constraintsAndIndexesNameRealAttributes() throws {
        try expectOne(
            """
            <entity name="A"><attribute name="x" attributeType="String"/>
            <uniquenessConstraints><uniquenessConstraint><constraint value="code"/></uniquenessConstraint></uniquenessConstraints></entity>
            """, "A.code: error: the uniqueness constraint (code) names \"code\", which is not an attribute or to-one relationship of A")
        try expectOne(
            """
            <entity name="A"><attribute name="x" attributeType="String"/>
            <fetchIndex name="byY"><fetchIndexElement property="y" type="Binary" order="ascending"/></fetchIndex></entity>
            """, "A.y: error: the fetch index \"byY\" names \"y\"")
    }

    @Test func entityOutsideNamedConfigurationsWarns() throws {
        let found = try diagnostics(
            """
            <entity name="A"><attribute name="x" attributeType="String"/></entity>
            <entity name="B"><attribute name="x" attributeType="String"/></entity>
            <configuration name="C"><memberEntity name="A"/><memberEntity name="Ghost"/></configuration>
            """)
        #expect(found.contains { $0.contains("entity B: warning: the entity is in no configuration") })
        #expect(found.contains { $0.contains("error: configuration C lists entity \"Ghost\"") })
    }

    @Test func inheritanceLoadsAndItsMistakesAreNamed() throws {
        #expect(
            try diagnostics(
                """
                <entity name="Base" isAbstract="YES"><attribute name="x" attributeType="String"/></entity>
                <entity name="Child" parentEntity="Base"><attribute name="y" attributeType="String"/></entity>
                <entity name="Grandchild" parentEntity="Child"><attribute name="z" attributeType="String"/>
                <uniquenessConstraints><uniquenessConstraint><constraint value="x"/></uniquenessConstraint></uniquenessConstraints></entity>
                """
            ).isEmpty)
        try expectOne(
            #"<entity name="Child" parentEntity="Ghost"><attribute name="y" attributeType="String"/></entity>"#,
            "entity Child: error: the parent entity \"Ghost\" is not in the model")
        try expectOne(
            """
            <entity name="Base"><attribute name="x" attributeType="String"/></entity>
            <entity name="Child" parentEntity="Base"><attribute name="x" attributeType="String"/></entity>
            """, "Child.x: error: the property is already inherited from Base")
        let cycle = try diagnostics(
            """
            <entity name="A" parentEntity="B"><attribute name="x" attributeType="String"/></entity>
            <entity name="B" parentEntity="A"><attribute name="y" attributeType="String"/></entity>
            """)
        #expect(cycle.contains { $0.contains("error: the parent entities form a cycle") })
    }

    @Test func untypedTransientsDerivedAttributesAndTemplatesLoad() throws {
        #expect(
            try diagnostics(
                """
                <entity name="Book"><attribute name="scratch" optional="YES" transient="YES"/>
                <attribute name="pageCount" optional="YES" attributeType="Integer 64" derived="YES" derivationExpression="pages.@count"/>
                <relationship name="pages" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Page" inverseName="book" inverseEntity="Page"/>
                <fetchedProperty name="all" optional="YES"><fetchRequest name="fetchedPropertyFetchRequest" entity="Page"/></fetchedProperty></entity>
                <entity name="Page"><relationship name="book" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Book" inverseName="pages" inverseEntity="Book"/></entity>
                <fetchRequest name="byBook" entity="Page" predicateString="book == $BOOK"/>
                """
            ).isEmpty)
        try expectOne(
            #"<entity name="A"><attribute name="n" optional="YES"/></entity>"#,
            "A.n: error: a stored attribute needs a type (it has Undefined)")
        try expectOne(
            #"<entity name="A"><attribute name="n" attributeType="String"/></entity><fetchRequest name="f" entity="Ghost"/>"#,
            "error: the fetch request template \"f\" names entity \"Ghost\"")
    }

    @Test func fetchedPropertyTargetWarnsAloneAndFailsMerged() throws {
        let directory = TemporaryDirectory()
        let model = try loadXML(
            """
            <entity name="A"><attribute name="k" attributeType="String"/>
            <fetchedProperty name="others" optional="YES"><fetchRequest name="fetchedPropertyFetchRequest" entity="Other" predicateString="k == $FETCH_SOURCE.k"/></fetchedProperty></entity>
            """, in: directory, name: "V")
        #expect(
            model.validate().map(\.description) == [
                "\(directory.path("V.xcdatamodel")): A.others: warning: targets entity \"Other\", which is not in this model; it must come from a model merged with this one"
            ])
        let error = #expect(throws: ModelError.self) { try model.validated(requireFetchedPropertyTargets: true) }
        #expect(error?.description.contains("nor in the models merged with it") == true)
    }

    @Test func defaultsThatDoNotFitAreWarnedAndIgnored() throws {
        try expectOne(
            #"<entity name="A"><attribute name="n" attributeType="Integer 16" defaultValueString="70000"/></entity>"#,
            "A.n: warning: default value \"70000\" is out of range for Integer 16")
        try expectOne(
            #"<entity name="A"><attribute name="d" attributeType="Double" defaultValueString="lots"/></entity>"#,
            "A.d: warning: default value \"lots\" is not a finite number; it is ignored")
        // Left over from a type change, as real models have them, and read as Core Data reads them.
        let directory = TemporaryDirectory()
        let model = try loadXML(
            """
            <entity name="A"><attribute name="n" attributeType="Integer 64" defaultValueString="0.0"/>
            <attribute name="m" attributeType="Integer 16" defaultValueString="NO"/>
            <attribute name="b" attributeType="Boolean" defaultValueString="0.0"/>
            <attribute name="c" attributeType="Boolean" defaultValueString="1"/></entity>
            """, in: directory)
        #expect(model.validate().isEmpty)
        let entity = try #require(model.entity(named: "A"))
        #expect(["n", "m", "b", "c"].map { entity.attribute(named: $0)?.effectiveDefaultValue } == ["0", "0", "NO", "YES"])
    }

    @Test func allErrorsAreReportedAtOnce() throws {
        let found = try diagnostics(
            """
            <entity name="A"><relationship name="b" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Ghost"/>
            <uniquenessConstraints><uniquenessConstraint><constraint value="code"/></uniquenessConstraint></uniquenessConstraints></entity>
            """)
        #expect(found.filter { $0.contains(": error: ") }.count == 2)
    }
}
