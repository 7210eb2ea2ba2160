#!/usr/bin/env bash
# `accel-advisor prices import` and `prices merge` (service/src/cmd_prices.c):
# every format from a small real excerpt (tests/fixtures/prices/README.md), the
# rows each refuses and why (issue 35, items 4, 5, 7-10), and a merge that keeps
# what is hand-entered, is idempotent and reports each change (issue 31, item 4).
# usage: test_prices.sh BINARY SOURCE_DIR
set -u
bin=$(realpath "$1")
src=$2
# shellcheck source=tests/cli/lib.sh
. "$src/tests/cli/lib.sh"
fx="$src/tests/fixtures/prices"
map="$src/data/accelerator-names.csv"
rules() { # a copy of the shipped rule set in $tmp/$1
    mkdir -p "$tmp/$1" && cp "$src"/rules/*.yaml "$tmp/$1/"
}
before() { # the shipped rule set with the frozen prices.yaml of the merge tests
    rules "$1" && cp "$fx/merge-before.yaml" "$tmp/$1/prices.yaml"
}
sky() { # skypilot import of the Nebius excerpt with the usual statements, then more args
    "$bin" prices import skypilot --cloud nebius --source https://nebius.com/prices --as-of 2025-01 "$@"
}
awsdoc() { # an AWS offer file of one product: publicationDate, instanceType, gpu, regionCode, price
    cat <<EOF_AWS
{"formatVersion":"v1.0","offerCode":"AmazonEC2","publicationDate":$1,
 "products":{"SKU1":{"sku":"SKU1","productFamily":"Compute Instance","attributes":{
   "instanceType":$2,"gpu":$3,"regionCode":$4,"vcpu":"192","memory":"2048 GiB",
   "operatingSystem":"Linux","tenancy":"Shared","preInstalledSw":"NA","capacitystatus":"Used"}}},
 "terms":{"OnDemand":{"SKU1":{"SKU1.A":{"priceDimensions":{"SKU1.A.B":{"unit":"Hrs",
   "pricePerUnit":{"USD":$5}}}}}}}}
EOF_AWS
}

# SkyPilot: one vocabulary with prices.yaml ("nebius eu-north1"), every row
# the name table lacks reported, and the document loads.
rules imported
check import-skypilot 0 sky --map "$map" "$fx/skypilot-nebius.csv"
expect_out import-skypilot out 'region: "nebius eu-north1"'
expect_out import-skypilot out 'instance_type: "gpu-h100-sxm_8gpu-128vcpu-1600gb"'
expect_out import-skypilot out 'spot: {usd_per_hour: 10, as_of: "2025-01"}'
expect_out import-skypilot out "accelerator: b200"
expect_out import-skypilot err "5 offers, 0 unmapped rows, 1 rows skipped, 0 rows dropped"
cp "$tmp/out" "$tmp/imported/prices.yaml" && cp "$tmp/out" "$tmp/nebius-lf.yaml"
check import-skypilot-loads 0 "$bin" check "$tmp/imported"
# The name table is compiled in: the same import from another directory, no --map.
check import-embedded-map 0 sh -c "cd / && \"\$0\" prices import skypilot --cloud nebius \
    --source https://nebius.com/prices --as-of 2025-01 \"\$1\"" "$bin" "$fx/skypilot-nebius.csv"
cmp -s "$tmp/out" "$tmp/nebius-lf.yaml" && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL embedded map: another document"; }
check import-skypilot-region 0 sky --region us-central1 "$fx/skypilot-nebius.csv"
expect_out import-skypilot-region err "2 offers, 0 unmapped rows, 4 rows skipped"
check import-big-cloud 0 "$bin" prices import skypilot --cloud aws --source https://aws.amazon.com/ec2/pricing/ \
    --as-of 2025-01 "$fx/skypilot-nebius.csv"
expect_out import-big-cloud out 'region: "eu-north1"'
# CRLF and CR-only line ends read as LF: the last column (SpotPrice) is kept
# (issue 35, item 5) and a CR-only file is not one line (item 8).
sed 's/$/\r/' "$fx/skypilot-nebius.csv" >"$tmp/crlf.csv"
check import-crlf 0 sky "$tmp/crlf.csv"
cmp -s "$tmp/out" "$tmp/nebius-lf.yaml" && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL crlf: another document"; diff "$tmp/out" "$tmp/nebius-lf.yaml" | head -5; }
tr '\n' '\r' <"$fx/skypilot-nebius.csv" >"$tmp/cr.csv"
check import-cr 0 sky "$tmp/cr.csv"
cmp -s "$tmp/out" "$tmp/nebius-lf.yaml" && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL cr: another document"; }

# The Lambda excerpt: an unmapped part, a row without an accelerator, another
# region and a row cut short (dropped with its line).
check import-lambda 0 "$bin" prices import skypilot --cloud lambda --source https://lambda.ai/pricing \
    --as-of 2026-10 --via https://github.com/skypilot-org/skypilot-catalog/blob/0f4070387edc953d7004cff197940e1918a1d6aa/catalogs/v8/lambda/vms.csv \
    "$fx/skypilot-lambda.csv"
expect_out import-lambda err "skypilot-lambda.csv:9: unmapped GH200 (gpu_1x_gh200)"
expect_out import-lambda err "skypilot-lambda.csv:10: dropped: not 9 fields"
expect_out import-lambda err "6 offers, 1 unmapped rows, 1 rows skipped, 1 rows dropped"
expect_out import-lambda out 'region: "lambda us-east-2"'
cp "$tmp/out" "$tmp/lambda.yaml"

# AWS: the offer file's own layout, dated by its publicationDate.
check import-aws 0 "$bin" prices import aws "$fx/aws-price-list.json"
expect_out import-aws out 'instance_type: "p5.48xlarge"'
expect_out import-aws out 'on_demand: {usd_per_hour: 55.04, as_of: "2026-09-01"}'
expect_out import-aws out "accelerator: inferentia2"
expect_out import-aws err "3 offers, 0 unmapped rows, 1 rows skipped, 0 rows dropped"
cp "$tmp/out" "$tmp/imported/prices.yaml"
check import-aws-loads 0 "$bin" check "$tmp/imported"
# A name the table lacks is reported, never guessed.
grep -v -e '^skypilot,L40S,' -e '^aws,inf2,' "$map" >"$tmp/partial-map.csv"
check import-skypilot-unmapped 0 sky --map "$tmp/partial-map.csv" "$fx/skypilot-nebius.csv"
expect_out import-skypilot-unmapped err "skypilot-nebius.csv:5: unmapped L40S (gpu-l40s-a_1gpu-8vcpu-32gb)"
expect_out import-skypilot-unmapped err "4 offers, 1 unmapped rows, 1 rows skipped"
check import-aws-unmapped 0 "$bin" prices import aws --map "$tmp/partial-map.csv" "$fx/aws-price-list.json"
expect_out import-aws-unmapped err "aws-price-list.json: unmapped inf2 (inf2.xlarge)"
expect_out import-aws-unmapped err "2 offers, 1 unmapped rows, 1 rows skipped"

# SkyPilot's GCP catalog prices a GPU apart from its VM (no InstanceType):
# skipped with one line saying why, never an offer (a VM row of the v7 file and
# a GPU row of its shape, with made-up prices).
printf '%s\n%s\n%s\n' "InstanceType,vCPUs,MemoryGiB,AcceleratorName,AcceleratorCount,GpuInfo,Region,AvailabilityZone,Price,SpotPrice" \
    "a3-highgpu-4g,104.0,936.0,,,,us-central1,us-central1-a,4.73003,1.08774" \
    ",,,H100,4,,us-central1,us-central1-a,39.5,16.6" >"$tmp/sky-gcp.csv"
check import-sky-gcp 1 "$bin" prices import skypilot --cloud gcp --source https://cloud.google.com/compute/gpus-pricing \
    --as-of 2025-01 "$tmp/sky-gcp.csv"
expect_out import-sky-gcp err "sky-gcp.csv: 1 rows price an accelerator without an InstanceType"

# Issue 35, item 4: past the loader's 1,000 offers the import fails, never
# drops the rest silently.
{
    head -1 "$fx/skypilot-nebius.csv"
    for i in $(seq 1 1001); do echo "gpu-h100-x$i,H100,8,128,1600,23.60,eu-north1,,10"; done
} >"$tmp/many.csv"
check import-too-many 1 sky "$tmp/many.csv"
expect_out import-too-many err "more than 1000 offers, the loader's limit"
head -1001 "$tmp/many.csv" >"$tmp/thousand.csv"
check import-thousand 0 sky "$tmp/thousand.csv"
expect_out import-thousand err "1000 offers, 0 unmapped rows, 0 rows skipped, 0 rows dropped"

# Item 7: values the loader refuses are dropped with the reason, never written;
# counts past 2^32 never wrap.
hdr=$(head -1 "$fx/skypilot-nebius.csv")
good="gpu-h100-sxm_8gpu-128vcpu-1600gb,H100,8,128,1600,23.60,eu-north1,,10"
printf '%s\n%s\n%s\n%s\n%s\n%s\n%s\n' "$hdr" "$good" \
    "big,H100,8,128,1600,1e308,eu-north1,," "tiny,H100,8,128,1600,1e-320,eu-north1,," \
    "wrap,H100,4294967304,128,1600,20,eu-north1,," "del$(printf '\177'),H100,8,128,1600,20,eu-north1,," \
    "utf$(printf '\303'),H100,8,128,1600,20,eu-north1,," >"$tmp/hostile.csv"
check import-hostile 0 sky "$tmp/hostile.csv"
expect_out import-hostile err "hostile.csv:3: dropped: on_demand price 1e+308 outside"
expect_out import-hostile err "hostile.csv:4: dropped: on_demand price 9.99989e-321 outside"
expect_out import-hostile err 'hostile.csv:5: dropped: AcceleratorCount "4294967304" is not a whole number'
expect_out import-hostile err "hostile.csv:6: dropped: the instance type or region is not UTF-8 text without control"
expect_out import-hostile err "hostile.csv:7: dropped: the instance type or region is not UTF-8"
expect_out import-hostile err "1 offers, 0 unmapped rows, 0 rows skipped, 5 rows dropped"
cp "$tmp/out" "$tmp/imported/prices.yaml"
check import-hostile-loads 0 "$bin" check "$tmp/imported"
# A size no shape of the part has: the loader's own reason, with the row.
printf '%s\n%s\n%s\n' "$hdr" "$good" "gpu-h100-3,H100,3,128,1600,9,eu-north1,," >"$tmp/shape.csv"
check import-shape 0 sky "$tmp/shape.csv"
expect_out import-shape err "shape.csv:3: dropped: no shape of h100 is a machine of 3"
# A date or source the loader refuses leaves nothing: exit 1, nothing written.
check import-bad-month 1 sky --as-of 2026-99 "$fx/skypilot-nebius.csv"
expect_out import-bad-month err 'dropped: "as_of" must be a date written YYYY-MM or YYYY-MM-DD'
[ -s "$tmp/out" ] && { fail=$((fail + 1)); echo "FAIL import-bad-month wrote a document"; } || pass=$((pass + 1))
check import-future 1 sky --as-of 2999-01 "$fx/skypilot-nebius.csv"
check import-bad-source 1 "$bin" prices import skypilot --cloud nebius --source nebius.com --as-of 2025-01 "$fx/skypilot-nebius.csv"
expect_out import-bad-source err 'dropped: "source" must be a public http(s) URL'
check import-del-via 2 sky --via "https://x.example/$(printf '\177')" "$fx/skypilot-nebius.csv"
# Item 8: nothing to import is a failure, not an empty document.
head -2 "$fx/skypilot-nebius.csv" >"$tmp/cpu-only.csv"
check import-no-offers 1 sky "$tmp/cpu-only.csv"
expect_out import-no-offers err "no offer to write"
check import-empty 1 sky /dev/null
# Item 10: two rows of one instance type and region with another part or
# count are refused, both named; a long instance type is refused, not cut.
printf '%s\n%s\n%s\n%s\n' "$hdr" "$good" "dup,H100,8,128,1600,20,eu-north1,," "dup,A100-80GB,8,128,1600,20,eu-north1,," >"$tmp/conflict.csv"
check import-conflict 0 sky "$tmp/conflict.csv"
expect_out import-conflict err "conflict.csv:4: dropped: 8 x A100-80GB, but [^ ]*conflict.csv:3 says 8 x H100 for dup in nebius eu-north1"
expect_out import-conflict err "conflict.csv:3: dropped: conflicts with a later row"
expect_out import-conflict err "1 offers, 0 unmapped rows, 0 rows skipped, 2 rows dropped"
long=$(printf 'x%.0s' $(seq 1 120))
printf '%s\n%s\n%s\n%s\n' "$hdr" "$good" "$long-a,H100,8,128,1600,20,eu-north1,," "$long-b,H100,8,128,1600,20,eu-north1,," >"$tmp/long.csv"
check import-long 0 sky "$tmp/long.csv"
expect_out import-long err "long.csv:3: dropped: instance type over 95 or region over 63 bytes"
expect_out import-long err "long.csv:4: dropped: instance type over 95"

# Item 9: AWS's publicationDate is checked, not copied: a crafted one cannot
# break the document or cut a character.
awsdoc '"2026-09-01T00:00:00Z"' '"p5.48xlarge"' '"8"' '"us-east-1"' '"55.04"' >"$tmp/aws-ok.json"
check aws-one 0 "$bin" prices import aws "$tmp/aws-ok.json"
expect_out aws-one out 'as_of: "2026-09-01"'
awsdoc '"2026-09-01\"}\nprices: x"' '"p5.48xlarge"' '"8"' '"us-east-1"' '"55.04"' >"$tmp/aws-date.json"
check aws-crafted-date 1 "$bin" prices import aws "$tmp/aws-date.json"
expect_out aws-crafted-date err "not an AWS Price List offer file"
awsdoc '"2026-09-0\u00e9T"' '"p5.48xlarge"' '"8"' '"us-east-1"' '"55.04"' >"$tmp/aws-utf8.json"
check aws-utf8-date 1 "$bin" prices import aws "$tmp/aws-utf8.json"
awsdoc '"2026-99-99T00:00:00Z"' '"p5.48xlarge"' '"8"' '"us-east-1"' '"55.04"' >"$tmp/aws-month.json"
check aws-bad-month 1 "$bin" prices import aws "$tmp/aws-month.json"
expect_out aws-bad-month err "SKU SKU1: dropped: \"as_of\" must be a date"
awsdoc '"2026-09-01T00:00:00Z"' '"p5.48xlarge"' '"4294967304"' '"us-east-1"' '"55.04"' >"$tmp/aws-wrap.json"
check aws-wrap 1 "$bin" prices import aws "$tmp/aws-wrap.json"
expect_out aws-wrap err 'SKU SKU1: dropped: gpu "4294967304" is not a whole number'
awsdoc '"2026-09-01T00:00:00Z"' '"p5.48xlarge\u007f"' '"8"' '"us-east-1"' '"55.04"' >"$tmp/aws-del.json"
check aws-del 1 "$bin" prices import aws "$tmp/aws-del.json"
expect_out aws-del err "not UTF-8 text without control characters"
awsdoc '"2026-09-01T00:00:00Z"' '"p5.48xlarge"' '"8"' '"us-east-1"' '"1e308"' >"$tmp/aws-big.json"
check aws-big-price 1 "$bin" prices import aws "$tmp/aws-big.json"
expect_out aws-big-price err 'dropped: "usd_per_hour" must be'
head -c 300 "$tmp/aws-ok.json" >"$tmp/aws-cut.json"
check aws-cut 1 "$bin" prices import aws "$tmp/aws-cut.json"
printf '{"publicationDate":"2026-09-01T00:00:00Z","products":{},"terms":{}}' >"$tmp/aws-none.json"
check aws-no-offers 1 "$bin" prices import aws "$tmp/aws-none.json"

# Azure: a page of the Retail Prices API; Linux on-demand and Spot meters of one
# VM size become one offer; Windows and Low Priority meters are skipped.
check import-azure 0 "$bin" prices import azure --as-of 2026-09-16 "$fx/azure-retail-prices.json"
expect_out import-azure out 'instance_type: "Standard_ND96isr_H100_v5"'
expect_out import-azure out 'accelerators: 8'
expect_out import-azure out 'on_demand: {usd_per_hour: 98.32, as_of: "2026-09-16"}'
expect_out import-azure out 'spot: {usd_per_hour: 18.169536, as_of: "2026-09-16"}'
expect_out import-azure out 'via: "https://prices.azure.com/api/retail/prices"'
expect_out import-azure err "1 offers, 0 unmapped rows, 2 rows skipped, 0 rows dropped"
cp "$tmp/out" "$tmp/azure.yaml"
check import-azure-no-date 2 "$bin" prices import azure "$fx/azure-retail-prices.json"
sed -e 's/"retailPrice": 98.32/"retailPrice": 98.32, "savingsPlan": [{"term": "1 Year", "retailPrice": 61.5}, {"term": "3 Years", "retailPrice": 38.9}]/' \
    -e 's/"armRegionName": "eastus", "armSkuName": "Standard_ND96isr_H100_v5", "meterName": "ND96isrH100v5 Spot"/"armRegionName": "eastus", "armSkuName": "Standard_NC4as_T4_v3", "meterName": "X Spot"/' \
    "$fx/azure-retail-prices.json" >"$tmp/azure-more.json"
check import-azure-plans 0 "$bin" prices import azure --as-of 2026-09-16 "$tmp/azure-more.json"
expect_out import-azure-plans out 'committed_1y: {usd_per_hour: 61.5, as_of: "2026-09-16"}'
expect_out import-azure-plans err "azure-more.json: item 2: unmapped Standard_NC4as_T4_v3"
expect_out import-azure-plans out 'committed_3y: {usd_per_hour: 38.9, as_of: "2026-09-16"}'
sed 's/"retailPrice": 98.32/"retailPrice": 1e-9/' "$fx/azure-retail-prices.json" >"$tmp/azure-tiny.json"
check import-azure-tiny 0 "$bin" prices import azure --as-of 2026-09-16 "$tmp/azure-tiny.json"
expect_out import-azure-tiny err 'item 0: dropped: on_demand price 1e-09 outside'
check import-azure-not-azure 1 "$bin" prices import azure --as-of 2026-09-16 "$fx/aws-price-list.json"
expect_out import-azure-not-azure err "not an Azure Retail Prices API page"
printf '{"Items": [{"a": 1},]}' >"$tmp/azure-comma.json"
check import-azure-trailing-comma 1 "$bin" prices import azure --as-of 2026-09-16 "$tmp/azure-comma.json"

# Google Cloud: Cyclenerd's pricing.yml, dated by its timestamp; commitments
# per 730-hour month divided back to an hour (as prices.yaml reads them).
check import-gcp 0 "$bin" prices import gcp "$fx/gcp-pricing.yml"
expect_out import-gcp out 'instance_type: "a3-highgpu-4g"'
expect_out import-gcp out 'on_demand: {usd_per_hour: 44.24499995, as_of: "2025-03-06"}'
expect_out import-gcp out 'committed_1y: {usd_per_hour: 30.69183607, as_of: "2025-03-06"}'
expect_out import-gcp out 'memory_gb: 936'
expect_out import-gcp err "gcp-pricing.yml:15: unmapped a100 (a2-highgpu-1g)"
expect_out import-gcp err "3 offers, 1 unmapped rows, 0 rows skipped, 0 rows dropped"
cp "$tmp/out" "$tmp/gcp.yaml"
check import-gcp-region 0 "$bin" prices import gcp --region us-central1 --as-of 2026-11 "$fx/gcp-pricing.yml"
expect_out import-gcp-region err "1 offers, 1 unmapped rows, 2 rows skipped"
expect_out import-gcp-region out 'as_of: "2026-11"'
sed 's/$/\r/' "$fx/gcp-pricing.yml" >"$tmp/gcp-crlf.yml"
check import-gcp-crlf 0 "$bin" prices import gcp "$tmp/gcp-crlf.yml"
cmp -s "$tmp/out" "$tmp/gcp.yaml" && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL gcp crlf: another document"; }
sed 's/^          hour: 44.2449999512877$/          - hour: 1/' "$fx/gcp-pricing.yml" >"$tmp/gcp-bad.yml"
check import-gcp-bad-line 1 "$bin" prices import gcp "$tmp/gcp-bad.yml"
expect_out import-gcp-bad-line err "gcp-bad.yml:43: not the layout of Cyclenerd's pricing.yml"
sed 's/h100-80gb: 4/h100-80gb: 4294967300/' "$fx/gcp-pricing.yml" >"$tmp/gcp-wrap.yml"
check import-gcp-wrap 1 "$bin" prices import gcp "$tmp/gcp-wrap.yml"
expect_out import-gcp-wrap err "gcp-wrap.yml:33: dropped: h100-80gb: 4.29497e+09 is not a whole number"
grep -v timestamp "$fx/gcp-pricing.yml" >"$tmp/gcp-undated.yml"
check import-gcp-undated 1 "$bin" prices import gcp "$tmp/gcp-undated.yml"
check import-gcp-dated 0 "$bin" prices import gcp --as-of 2025-03-06 "$tmp/gcp-undated.yml"
check import-gcp-csv 1 "$bin" prices import gcp "$fx/skypilot-nebius.csv"

# Refusals: what an import needs stated, files of another format, a bad table.
check import-no-as-of 2 "$bin" prices import skypilot --cloud nebius --source https://nebius.com/prices "$fx/skypilot-nebius.csv"
check import-neocloud-no-cloud 2 "$bin" prices import skypilot --provider neocloud \
    --source https://nebius.com/prices --as-of 2025-01 "$fx/skypilot-nebius.csv"
expect_out import-neocloud-no-cloud err "skypilot needs --cloud"
check import-bad-cloud 2 sky --cloud 'Nebius Cloud' "$fx/skypilot-nebius.csv"
check import-bad-date 2 "$bin" prices import aws --as-of 2025 "$fx/aws-price-list.json"
check import-bad-confidence 2 "$bin" prices import aws --confidence meh "$fx/aws-price-list.json"
check import-unknown-format 2 "$bin" prices import oracle "$fx/aws-price-list.json"
check import-no-file 2 "$bin" prices import aws
check import-missing-file 2 "$bin" prices import aws /nonexistent.json
check import-csv-as-aws 1 "$bin" prices import aws "$fx/skypilot-nebius.csv"
expect_out import-csv-as-aws err "not an AWS Price List offer file"
check import-json-as-skypilot 1 sky "$fx/aws-price-list.json"
expect_out import-json-as-skypilot err "not a SkyPilot catalog"
printf 'skypilot,H100\n' >"$tmp/badmap.csv"
check import-bad-map 2 "$bin" prices import aws --map "$tmp/badmap.csv" "$fx/aws-price-list.json"
expect_out import-bad-map err "badmap.csv:1: expected format,name,accelerator"
check import-no-map 2 "$bin" prices import aws --map /nonexistent.csv "$fx/aws-price-list.json"
check import-bad-rules 2 sky --rules /nonexistent "$fx/skypilot-nebius.csv"

# merge (into tests/fixtures/prices/merge-before.yaml, frozen): a copy that
# agrees with the file changes nothing (the Azure capture the offer was read from).
before ma
check merge-azure-same 0 "$bin" prices merge "$tmp/ma/prices.yaml" "$tmp/azure.yaml"
expect_out merge-azure-same out "0 prices changed, 0 added, 0 new offers, 0 kept (newer in the file), 0 absent"
cmp -s "$tmp/ma/prices.yaml" "$fx/merge-before.yaml" && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL an agreeing copy changed prices.yaml"; }
# An older copy (gcp, 2025-03-06) is kept out of the file's 2026-07-30 prices,
# and its other regions come in as new offers.
before mg
check merge-gcp-older 0 "$bin" prices merge "$tmp/mg/prices.yaml" "$tmp/gcp.yaml"
expect_out merge-gcp-older out '^kept h100 gcp "us-central1" "a3-highgpu-4g" on_demand 44.24499995 (2026-07-30): newer than the import'"'"'s 44.24499995 (2025-03-06)$'
expect_out merge-gcp-older out '^new h100 gcp "europe-west4" "a3-highgpu-4g" on_demand 56.27023959 (2025-03-06)'
expect_out merge-gcp-older out "0 prices changed, 0 added, 2 new offers, 4 kept (newer in the file)"
check merge-gcp-loads 0 "$bin" check "$tmp/mg"
# merge: the shipped file through itself changes nothing.
rules m0
check merge-round-trip 0 "$bin" prices merge "$tmp/m0/prices.yaml" "$src/rules/prices.yaml"
expect_out merge-round-trip out "0 prices changed, 0 added, 0 new offers, 0 kept (newer in the file), 0 absent"
cmp -s "$tmp/m0/prices.yaml" "$src/rules/prices.yaml" && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL round trip changed prices.yaml"; }
# The Lambda import: changed prices, new offers, one absent, every change
# reported; comments, sources, other offers, the reserved basis and the
# capacity list untouched; `via` follows the import where every price of the
# offer now comes from it (not on the offer with a reserved rate).
before m1
check merge-lambda 0 "$bin" prices merge "$tmp/m1/prices.yaml" "$tmp/lambda.yaml"
expect_out merge-lambda out '^changed h100 neocloud "lambda us-east-1" "gpu_1x_h100_sxm5" on_demand 3.29 (2025-01) -> 4.29 (2026-10)$'
expect_out merge-lambda out '^changed h100 neocloud "lambda us-east-1" "gpu_4x_h100_sxm5" on_demand 12.36 (2025-01) -> 16.36 (2026-10)$'
expect_out merge-lambda out '^new h100 neocloud "lambda us-east-1" "gpu_8x_h100_sxm5" on_demand 31.92 (2026-10)$'
expect_out merge-lambda out '^new b200 neocloud "lambda us-east-1" "gpu_8x_b200_sxm6"'
expect_out merge-lambda out '^absent a100 neocloud "lambda us-east-1" "gpu_8x_a100_80gb_sxm4": not in the import; kept as it is$'
expect_out merge-lambda out '^via h100 neocloud "lambda us-east-1" "gpu_1x_h100_sxm5": .*11580132.* -> .*0f40703'
expect_out merge-lambda out '^via h100 neocloud "lambda us-east-1" "gpu_4x_h100_sxm5": kept .*11580132.*; some of its prices are not from the import'"'"'s'
expect_out merge-lambda out "3 prices changed, 0 added, 3 new offers, 0 kept (newer in the file), 1 absent"
check merge-lambda-loads 0 "$bin" check "$tmp/m1"
diff "$fx/merge-before.yaml" "$tmp/m1/prices.yaml" >"$tmp/diff"
# Only price and via lines change, and lines are added; nothing else is removed.
n=$(grep -c '^<' "$tmp/diff")
[ "$n" -eq 5 ] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL merge removed $n lines, want 5 (3 prices, 2 via)"; cat "$tmp/diff"; }
grep '^<' "$tmp/diff" | grep -v -e 'on_demand: ' -e 'via: ' && { fail=$((fail + 1)); echo "FAIL merge changed another line"; } || pass=$((pass + 1))
# Idempotent: the same import again changes nothing.
cp "$tmp/m1/prices.yaml" "$tmp/m1-once.yaml"
check merge-again 0 "$bin" prices merge "$tmp/m1/prices.yaml" "$tmp/lambda.yaml"
expect_out merge-again out "0 prices changed, 0 added, 0 new offers"
cmp -s "$tmp/m1/prices.yaml" "$tmp/m1-once.yaml" && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL merge not idempotent"; }
# An older copy never replaces a newer price: it is kept and reported.
sed 's/2026-10/2026-01/' "$tmp/lambda.yaml" >"$tmp/lambda-old.yaml"
check merge-older 0 "$bin" prices merge "$tmp/m1/prices.yaml" "$tmp/lambda-old.yaml"
expect_out merge-older out '^kept h100 neocloud "lambda us-east-1" "gpu_1x_h100_sxm5" on_demand 4.29 (2026-10): newer than the import'"'"'s 4.29 (2026-01)$'
cmp -s "$tmp/m1/prices.yaml" "$tmp/m1-once.yaml" && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL older import changed the file"; }
# --dry-run reports and writes nothing.
before m2
check merge-dry-run 0 "$bin" prices merge --dry-run "$tmp/m2/prices.yaml" "$tmp/lambda.yaml"
expect_out merge-dry-run out "dry run, nothing written"
cmp -s "$tmp/m2/prices.yaml" "$fx/merge-before.yaml" && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL dry run wrote"; }
# From a pipe: import | merge -.
check merge-pipe 0 sh -c '"$0" prices import skypilot --cloud nebius --source https://nebius.com/prices \
    --as-of 2026-10 "$1" | "$0" prices merge "$2" -' "$bin" "$fx/skypilot-nebius.csv" "$tmp/m2/prices.yaml"
expect_out merge-pipe out '^changed h100 neocloud "nebius eu-north1" "gpu-h100-sxm_8gpu-128vcpu-1600gb" on_demand 23.6 (2025-01) -> 23.6 (2026-10)$'
grep -q 'on_demand: {usd_per_hour: 23.60, as_of: "2026-10"}' "$tmp/m2/prices.yaml" && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL a re-dated price is not kept as written"; }
# A merge whose result the loader refuses leaves the file as it was.
printf 'prices:\n  - accelerator: h100\n    provider: aws\n    region: us-east-1\n    instance_type: p9.weird\n    accelerators: 3\n    source: https://aws.amazon.com/ec2/pricing/\n    confidence: low\n    on_demand: {usd_per_hour: 9, as_of: "2026-10"}\n' >"$tmp/bad-import.yaml"
before m3
check merge-refused 1 "$bin" prices merge "$tmp/m3/prices.yaml" "$tmp/bad-import.yaml"
expect_out merge-refused err "the merged file does not load"
expect_out merge-refused err "no shape of h100 is a machine of 3"
cmp -s "$tmp/m3/prices.yaml" "$fx/merge-before.yaml" && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL refused merge wrote"; }
check merge-not-yaml 1 "$bin" prices merge "$tmp/m3/prices.yaml" "$fx/skypilot-nebius.csv"
check merge-missing 2 "$bin" prices merge "$tmp/m3/prices.yaml" /nonexistent.yaml
check merge-usage 2 "$bin" prices merge "$tmp/m3/prices.yaml"

echo "cli.prices: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
