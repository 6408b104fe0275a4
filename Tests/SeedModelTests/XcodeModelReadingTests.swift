import Foundation
import SeedTestSupport
import Testing

@testable import SeedModel

/// Entity XML in the form Xcode 15 writes, with every element the reader must understand.
let shopXML = """
        <entity name="Product" representedClassName="Product" syncable="YES" codeGenerationType="class" elementID="Item" versionHashModifier="v2">
            <attribute name="sku" attributeType="String" elementID="code"/>
            <attribute name="price" optional="YES" attributeType="Decimal" defaultValueString="0.0"/>
            <attribute name="stock" attributeType="Integer 32" minValueString="0" maxValueString="1000" defaultValueString="5" usesScalarValueType="YES"/>
            <attribute name="added" optional="YES" attributeType="Date" defaultDateTimeInterval="694224000" usesScalarValueType="NO"/>
            <attribute name="active" attributeType="Boolean" defaultValueString="YES" usesScalarValueType="YES" indexed="YES"/>
            <attribute name="photo" optional="YES" attributeType="Binary" allowsExternalBinaryDataStorage="YES"/>
            <attribute name="tags" optional="YES" attributeType="Transformable" valueTransformerName="NSSecureUnarchiveFromDataTransformer" customClassName="[String]"/>
            <attribute name="cache" optional="YES" transient="YES" attributeType="String" versionHashModifier="c1"/>
            <attribute name="ident" optional="YES" attributeType="UUID" usesScalarValueType="NO"/>
            <attribute name="link" optional="YES" attributeType="URI"/>
            <attribute name="weight" optional="YES" attributeType="Double" defaultValueString="0.5" usesScalarValueType="YES"/>
            <attribute name="ratio" optional="YES" attributeType="Float" defaultValueString="1" usesScalarValueType="YES"/>
            <attribute name="small" optional="YES" attributeType="Integer 16" defaultValueString="0" usesScalarValueType="YES"/>
            <attribute name="big" optional="YES" attributeType="Integer 64" defaultValueString="0" usesScalarValueType="YES"/>
            <relationship name="shelf" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Shelf" inverseName="products" inverseEntity="Shelf"/>
            <relationship name="related" optional="YES" toMany="YES" ordered="YES" minCount="1" maxCount="5" deletionRule="Deny" destinationEntity="Product" inverseName="related" inverseEntity="Product"/>
            <fetchedProperty name="reviews" optional="YES">
                <fetchRequest name="fetchedPropertyFetchRequest" entity="Review" predicateString="sku == $FETCH_SOURCE.sku"/>
            </fetchedProperty>
            <fetchIndex name="bySku">
                <fetchIndexElement property="sku" type="Binary" order="ascending"/>
                <fetchIndexElement property="stock" type="Binary" order="descending"/>
            </fetchIndex>
            <uniquenessConstraints>
                <uniquenessConstraint>
                    <constraint value="sku"/>
                </uniquenessConstraint>
            </uniquenessConstraints>
            <userInfo>
                <entry key="owner" value="catalogue"/>
            </userInfo>
        </entity>
        <entity name="Shelf" representedClassName="Shelf" syncable="YES" codeGenerationType="class">
            <attribute name="label" attributeType="String">
                <userInfo>
                    <entry key="csv" value="shelf_label"/>
                </userInfo>
            </attribute>
            <relationship name="products" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Product" inverseName="shelf" inverseEntity="Product"/>
        </entity>
        <fetchRequest name="AllProducts" entity="Product"/>
        <configuration name="Catalogue">
            <memberEntity name="Product"/>
            <memberEntity name="Shelf"/>
        </configuration>
        <elements>
            <element name="Product" positionX="-63" positionY="-18" width="128" height="299"/>
            <element name="Shelf" positionX="150" positionY="20" width="128" height="59"/>
        </elements>
    """

@Suite("Reading Xcode data models")
struct XcodeModelReadingTests {
    @Test func readsEveryElementXcodeWrites() throws {
        let directory = TemporaryDirectory()
        let model = try loadXML(shopXML, in: directory, name: "Shop")
        #expect(model.name == "Shop")
        #expect(model.entities.map(\.name) == ["Product", "Shelf"])
        #expect(model.configurations == [Configuration(name: "Catalogue", entities: ["Product", "Shelf"])])

        let product = try #require(model.entity(named: "Product"))
        #expect(product.representedClassName == "Product")
        #expect(product.renamingIdentifier == "Item")
        #expect(product.versionHashModifier == "v2")
        #expect(product.userInfo == ["owner": "catalogue"])
        #expect(product.uniquenessConstraints == [["sku"]])
        #expect(
            product.indexes == [
                FetchIndex(name: "bySku", elements: [.init(property: "sku"), .init(property: "stock", isAscending: false)])
            ])

        let sku = try #require(product.attribute(named: "sku"))
        #expect(sku.type == .string && !sku.isOptional && sku.renamingIdentifier == "code")
        let stock = try #require(product.attribute(named: "stock"))
        #expect(stock.type == .integer32 && stock.minValue == "0" && stock.maxValue == "1000" && stock.defaultValue == "5")
        #expect(product.attribute(named: "added")?.defaultValue == "694224000")
        #expect(product.attribute(named: "active")?.isIndexed == true)
        #expect(product.attribute(named: "active")?.defaultValue == "YES")
        #expect(product.attribute(named: "photo")?.allowsExternalBinaryDataStorage == true)
        #expect(product.attribute(named: "tags")?.valueTransformerName == "NSSecureUnarchiveFromDataTransformer")
        let cache = try #require(product.attribute(named: "cache"))
        #expect(cache.isTransient && cache.isOptional && cache.versionHashModifier == "c1")
        #expect(Set(product.attributes.map(\.type)) == Set(AttributeType.allCases.filter(\.isStorable)))

        let shelf = try #require(product.relationship(named: "shelf"))
        #expect(shelf == Relationship(name: "shelf", destination: "Shelf", inverse: "products", maxCount: 1))
        let related = try #require(product.relationship(named: "related"))
        #expect(related.isToMany && related.isOrdered && related.minCount == 1 && related.maxCount == 5 && related.deleteRule == .deny)
        #expect(model.entity(named: "Shelf")?.relationship(named: "products")?.deleteRule == .cascade)
        #expect(model.entity(named: "Shelf")?.attribute(named: "label")?.userInfo == ["csv": "shelf_label"])

        #expect(product.fetchedProperties == [FetchedProperty(name: "reviews", entity: "Review", predicate: "sku == $FETCH_SOURCE.sku")])
    }

    @Test func transientRelationshipsReadAndRoundTripThroughJSON() throws {
        let directory = TemporaryDirectory()
        let model = try loadXML(readingXML, in: directory, name: "Reading")
        let book = try #require(model.entity(named: "ReadingSession")?.relationship(named: "book"))
        #expect(book.isTransient && book.destination == "Book" && book.inverse == "sessions" && !book.isToMany)
        #expect(model.entity(named: "Book")?.relationship(named: "sessions")?.isTransient == true)
        #expect(model.summary().contains("  book: to-one Book, inverse sessions, delete rule Nullify, optional, transient\n"))
        let path = directory.path("Reading.json")
        try model.canonicalJSON().write(to: URL(fileURLWithPath: path))
        let reread = try ModelLoader.load(path)
        #expect(reread == model)
        #expect(reread.entity(named: "ReadingSession")?.relationship(named: "book")?.isTransient == true)
    }

    @Test func bundleLoadsCurrentVersionAndListsAll() throws {
        let directory = TemporaryDirectory()
        let bundle = directory.writeBundle(
            "Shop",
            versions: [
                ("Shop", modelXML(#"<entity name="A"><attribute name="x" attributeType="String"/></entity>"#, identifier: "1")),
                ("Shop 2", modelXML(#"<entity name="A"><attribute name="y" attributeType="String"/></entity>"#, identifier: "2")),
                ("Shop 10", modelXML(#"<entity name="A"><attribute name="z" attributeType="String"/></entity>"#, identifier: "10")),
            ], current: "Shop 2")

        let current = try ModelLoader.load(bundle)
        #expect(current.name == "Shop")
        #expect(current.versionIdentifiers == ["2"])
        #expect(current.source == ModelSource(file: bundle, version: "Shop 2"))

        let all = try ModelLoader.loadAllVersions(bundle)
        #expect(all.map(\.versionIdentifiers) == [["1"], ["2"], ["10"]])
        #expect(try ModelLoader.versionNames(ofBundle: bundle) == ["Shop", "Shop 2", "Shop 10"])

        let one = try ModelLoader.load(bundle + "/Shop 10.xcdatamodel")
        #expect(one.name == "Shop" && one.versionIdentifiers == ["10"])
    }

    @Test func loneVersionFolderLoadsAsSingleVersionModel() throws {
        let directory = TemporaryDirectory()
        let model = try loadXML(#"<entity name="A"><attribute name="x" attributeType="String"/></entity>"#, in: directory, name: "Legacy")
        #expect(model.name == "Legacy")
        #expect(model.source == ModelSource(file: directory.path("Legacy.xcdatamodel")))
        #expect(try ModelLoader.loadAllVersions(directory.path("Legacy.xcdatamodel")) == [model])
    }

    @Test func bundleWithoutCurrentVersionMarker() throws {
        let directory = TemporaryDirectory()
        let body = modelXML(#"<entity name="A"><attribute name="x" attributeType="String"/></entity>"#)
        let single = directory.writeBundle("One", versions: [("One", body)], current: nil)
        #expect(try ModelLoader.load(single).entities.count == 1)

        let two = directory.writeBundle("Two", versions: [("Two", body), ("Two 2", body)], current: nil)
        let error = #expect(throws: ModelError.self) { try ModelLoader.load(two) }
        #expect(error?.description.contains("2 versions and no .xccurrentversion") == true)
    }

    @Test func markerNamingNoVersionLoadsTheLatestWithAWarning() throws {
        let directory = TemporaryDirectory()
        let old = modelXML(#"<entity name="A"><attribute name="x" attributeType="String"/></entity>"#)
        let newer = modelXML(
            #"<entity name="A"><attribute name="x" attributeType="String"/><attribute name="y" attributeType="String"/></entity>"#)
        let bundle = directory.writeBundle("Empty", versions: [("Empty", old), ("Empty 2", newer)], current: nil)
        directory.write(
            "Empty.xcdatamodeld/.xccurrentversion", #"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict/></plist>"#)
        let model = try ModelLoader.load(bundle)
        #expect(model.entity(named: "A")?.attributes.count == 2, "the latest version, as Xcode builds it")
        #expect(
            model.validate().map(\.description) == [
                "\(bundle): warning: .xccurrentversion names no current version; using the latest, Empty 2.xcdatamodel, as Xcode does. Set the current version in Xcode to be sure"
            ])
    }

    @Test func unknownAttributeTypeIsNamed() throws {
        let directory = TemporaryDirectory()
        let error = #expect(throws: ModelError.self) {
            try loadXML(
                #"<entity name="A"><attribute name="blob" attributeType="Blob"/><attribute name="n" attributeType="Int"/></entity>"#,
                in: directory)
        }
        let text = try #require(error).description
        #expect(text.contains("A.blob: error: unknown attribute type \"Blob\""))
        #expect(text.contains("A.n: error: unknown attribute type \"Int\""))
    }

    @Test func missingPathAndMalformedFiles() throws {
        let directory = TemporaryDirectory()
        let missing = #expect(throws: ModelError.self) { try ModelLoader.load(directory.path("Nope.xcdatamodeld")) }
        #expect(missing?.isNotFound == true)

        directory.write("Broken.xcdatamodel/contents", "<model><entity name=\"A\">")
        let broken = #expect(throws: ModelError.self) { try ModelLoader.load(directory.path("Broken.xcdatamodel")) }
        #expect(broken?.isNotFound == false)
        #expect(broken?.description.contains("not well-formed XML") == true)

        directory.write("NotAModel.xcdatamodel/contents", "<plist/>")
        let notModel = #expect(throws: ModelError.self) { try ModelLoader.load(directory.path("NotAModel.xcdatamodel")) }
        #expect(notModel?.description.contains("no <model> element") == true)

        let text = directory.write("model.txt", "hello")
        #expect(throws: ModelError.self) { try ModelLoader.load(text) }
    }

    @Test func olderXcodeForms() throws {
        let directory = TemporaryDirectory()
        let model = try loadXML(
            """
            <entity name="A" syncable="YES">
                <attribute name="born" optional="YES" attributeType="Date" defaultValueString="2001-01-02 00:00:00 +0000" defaultDateTimeInterval="86400" syncable="YES"/>
                <attribute name="x" optional="YES" attributeType="String" syncable="YES"/>
                <attribute name="y" optional="YES" attributeType="Integer 32" defaultValueString="0.0" syncable="YES"/>
                <attribute name="z" optional="YES" attributeType="String" renamingIdentifier="old" syncable="YES"/>
                <compoundIndexes>
                    <compoundIndex>
                        <index value="x"/>
                        <index value="y"/>
                    </compoundIndex>
                </compoundIndexes>
            </entity>
            """, in: directory, name: "Old")
        let entity = try #require(model.entity(named: "A"))
        #expect(entity.attribute(named: "born")?.defaultValue == "86400", "the interval, not the readable text")
        #expect(entity.indexes == [FetchIndex(name: "compound_x_y", elements: [.init(property: "x"), .init(property: "y")])])
        #expect(entity.attribute(named: "z")?.renamingIdentifier == nil, "momc ignores renamingIdentifier=; only elementID renames")
        #expect(model.validate().isEmpty)
    }

    @Test func layoutAndUnknownAttributesAreIgnored() throws {
        let directory = TemporaryDirectory()
        let plain = try loadXML(#"<entity name="A"><attribute name="x" attributeType="String"/></entity>"#, in: directory, name: "P")
        let decorated = try loadXML(
            """
            <entity name="A" syncable="YES" futureFlag="1"><attribute name="x" attributeType="String" spotlightIndexingEnabled="YES" someNewThing="z"/></entity>
            <elements><element name="A" positionX="1" positionY="2" width="3" height="4"/></elements>
            """, in: directory, name: "P2")
        #expect(decorated.entities == plain.entities)
    }
}
