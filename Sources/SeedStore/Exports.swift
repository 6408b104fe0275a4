// SeedStore's API is built on SeedInstall's types (StoreMetadata, StoreError, StoreLayout, Manifest,
// SeedInstaller…), which lived here before SeedInstall was split out: `import SeedStore` keeps
// giving them, so apps and scripts written against SeedStore compile unchanged. (Typealiases could
// not do it: code importing both modules would find each name twice.)
@_exported import SeedInstall
