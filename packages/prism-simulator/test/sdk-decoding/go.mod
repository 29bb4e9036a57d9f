module prism-simulator.test/sdk-decoding

go 1.26.0
