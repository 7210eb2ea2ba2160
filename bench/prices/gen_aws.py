#!/usr/bin/env python3
"""An AWS Price List offer file of N synthetic EC2 SKUs, in the layout of
tests/fixtures/prices/aws-price-list.json (the real file's), for timing
`accel-advisor prices import aws` on large inputs (bench/prices/run.sh).
Every SKU is a mapped GPU instance (p5) of 25 sizes in 20 regions: 500
offers, under the import's limit, each priced by N/500 SKUs; one on-demand
and one reserved term per SKU, written compactly, or indented as AWS writes
its files with --indent. usage: gen_aws.py N [--indent] > file.json"""
import json
import sys

n = int(sys.argv[1])
products, on_demand, reserved = {}, {}, {}
for i in range(n):
    sku = "SKU%013d" % i
    products[sku] = {
        "sku": sku,
        "productFamily": "Compute Instance",
        "attributes": {
            "instanceType": "p5.%dxlarge" % (i % 25),
            "regionCode": "region-%d" % (i // 25 % 20),
            "operatingSystem": "Linux", "tenancy": "Shared", "preInstalledSw": "NA",
            "capacitystatus": "Used", "gpu": "8", "vcpu": "192", "memory": "2048 GiB",
            "location": "somewhere", "usagetype": "BoxUsage:p5.48xlarge",
        },
    }
    dim = lambda code, usd: {code: {"unit": "Hrs", "pricePerUnit": {"USD": usd},
                                    "description": "hourly", "rateCode": code}}
    on_demand[sku] = {sku + ".JRTCKXETXF": {
        "offerTermCode": "JRTCKXETXF", "sku": sku, "effectiveDate": "2026-09-01T00:00:00Z",
        "priceDimensions": dim(sku + ".JRTCKXETXF.6YS6EN2CT7", "55.0400000000"),
        "termAttributes": {}}}
    reserved[sku] = {sku + ".4NA7Y494T4": {
        "offerTermCode": "4NA7Y494T4", "sku": sku, "effectiveDate": "2026-09-01T00:00:00Z",
        "priceDimensions": dim(sku + ".4NA7Y494T4.6YS6EN2CT7", "36.0000000000"),
        "termAttributes": {"LeaseContractLength": "1yr", "OfferingClass": "standard",
                           "PurchaseOption": "No Upfront"}}}
json.dump({"formatVersion": "v1.0", "offerCode": "AmazonEC2", "version": "20260901000000",
           "publicationDate": "2026-09-01T00:00:00Z", "products": products,
           "terms": {"OnDemand": on_demand, "Reserved": reserved}}, sys.stdout, **({"indent": 2} if "--indent" in sys.argv else {"separators": (",", ":")}))
