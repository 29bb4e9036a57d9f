// readInventory resolves the inventory the way CAPX v1.10.3's v4 path does (docs/capx-v4-sequence.md §3.1), with the
// official clustermgmt, networking and vmm SDKs: clusters by name (keeping the AOS ones, which leaves the Prism
// Central's own entity out) and by extId, storage containers by clusterExtId and containerExtId through a second
// clustermgmt client, subnets by name (VLAN on the cluster, or OVERLAY) and by extId, images newest first and paged
// through as PGC pages ($page with metadata.totalAvailableResults), and an image by extId. Every answer is checked for
// undecoded fields and decoded a second time with the error checked, as in main.go.
package main

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	clmapi "github.com/nutanix/ntnx-api-golang-clients/clustermgmt-go-client/v4/api"
	clmclient "github.com/nutanix/ntnx-api-golang-clients/clustermgmt-go-client/v4/client"
	clmconfig "github.com/nutanix/ntnx-api-golang-clients/clustermgmt-go-client/v4/models/clustermgmt/v4/config"
	netapi "github.com/nutanix/ntnx-api-golang-clients/networking-go-client/v4/api"
	netclient "github.com/nutanix/ntnx-api-golang-clients/networking-go-client/v4/client"
	netconfig "github.com/nutanix/ntnx-api-golang-clients/networking-go-client/v4/models/networking/v4/config"
	vmmapi "github.com/nutanix/ntnx-api-golang-clients/vmm-go-client/v4/api"
	vmmclient "github.com/nutanix/ntnx-api-golang-clients/vmm-go-client/v4/client"
	vmmcontent "github.com/nutanix/ntnx-api-golang-clients/vmm-go-client/v4/models/vmm/v4/content"
)

func clustermgmtClient(e env) *clmclient.ApiClient {
	c := clmclient.NewApiClient()
	c.Host, c.Port, c.Username, c.Password = e.host, e.port, e.username, e.password
	c.VerifySSL, c.RetryInterval, c.LoggerFile = true, 200*time.Millisecond, os.Getenv("SDK_LOG_FILE")
	return c
}

func readInventory(e env, vmmClient *vmmclient.ApiClient) {
	readClusters(e)
	readStorageContainers(e)
	readSubnets(e)
	readImages(e, vmmapi.NewImagesApi(vmmClient))
}

func hasFunction(cluster clmconfig.Cluster, function clmconfig.ClusterFunctionRef) bool {
	if cluster.Config == nil {
		return false
	}
	for _, f := range cluster.Config.ClusterFunction {
		if f == function {
			return true
		}
	}
	return false
}

func readClusters(e env) {
	clusters := clmapi.NewClustersApi(clustermgmtClient(e))
	all, err := clusters.ListClusters(ptr(0), nil, nil, nil, nil, nil, nil)
	if err != nil {
		fail("ListClusters: %v", err)
	}
	checkDecoded("ListClusters", all)
	items, ok := all.GetData().([]clmconfig.Cluster)
	if !ok || len(items) != 2 {
		fail("ListClusters: expected the cluster and the Prism Central, got %T %+v", all.GetData(), all.GetData())
	}
	var aos, prismCentral []string
	for _, cluster := range items {
		if hasFunction(cluster, clmconfig.CLUSTERFUNCTIONREF_AOS) {
			aos = append(aos, *cluster.ExtId)
		}
		if hasFunction(cluster, clmconfig.CLUSTERFUNCTIONREF_PRISM_CENTRAL) {
			prismCentral = append(prismCentral, *cluster.ExtId)
		}
	}
	if len(aos) != 1 || aos[0] != e.cluster || len(prismCentral) != 1 || prismCentral[0] != mustEnv("SIM_PRISM_CENTRAL") {
		fail("ListClusters: AOS clusters %v, PRISM_CENTRAL %v", aos, prismCentral)
	}
	strict(e, "/api/clustermgmt/v4.2/config/clusters?%24page=0", clmconfig.NewListClustersApiResponse())

	filter := fmt.Sprintf("name eq '%s'", mustEnv("SIM_CLUSTER_NAME"))
	named, err := clusters.ListClusters(ptr(0), nil, &filter, nil, nil, nil, nil)
	if err != nil {
		fail("ListClusters $filter=%s: %v", filter, err)
	}
	checkDecoded("ListClusters (by name)", named)
	if found, ok := named.GetData().([]clmconfig.Cluster); !ok || len(found) != 1 || *found[0].ExtId != e.cluster {
		fail("ListClusters $filter=%s: %+v", filter, named.GetData())
	}

	got, err := clusters.GetClusterById(&e.cluster, nil)
	if err != nil {
		fail("GetClusterById: %v", err)
	}
	checkDecoded("GetClusterById", got)
	cluster, ok := got.GetData().(clmconfig.Cluster)
	if !ok || cluster.Config == nil || cluster.Config.IsAvailable == nil || !*cluster.Config.IsAvailable || !hasFunction(cluster, clmconfig.CLUSTERFUNCTIONREF_AOS) {
		fail("GetClusterById: %T %+v", got.GetData(), got.GetData())
	}
	strict(e, "/api/clustermgmt/v4.2/config/clusters/"+e.cluster, clmconfig.NewGetClusterApiResponse())

	missing := "00000000-0000-4000-8000-000000000000"
	_, err = clusters.GetClusterById(&missing, nil)
	var notFound clmclient.GenericOpenAPIError
	if !errors.As(err, &notFound) || !strings.HasPrefix(notFound.Status, "404") {
		fail("GetClusterById of an unknown extId: %v, not a 404", err)
	}
	step("ListClusters: one AOS cluster and the Prism Central (PRISM_CENTRAL); by name; GetClusterById; unknown extId 404")
}

func readStorageContainers(e env) {
	// CAPX reads storage containers through a clustermgmt client of their own.
	containers := clmapi.NewStorageContainersApi(clustermgmtClient(e))
	filter := fmt.Sprintf("clusterExtId eq '%s'", e.cluster)
	listed, err := containers.ListStorageContainers(ptr(0), nil, &filter, nil, nil)
	if err != nil {
		fail("ListStorageContainers $filter=%s: %v", filter, err)
	}
	checkDecoded("ListStorageContainers", listed)
	items, ok := listed.GetData().([]clmconfig.StorageContainer)
	if !ok || len(items) != 1 || items[0].ContainerExtId == nil || items[0].Name == nil || *items[0].ClusterExtId != e.cluster {
		fail("ListStorageContainers $filter=%s: %T %+v", filter, listed.GetData(), listed.GetData())
	}
	container := *items[0].ContainerExtId
	both := fmt.Sprintf("containerExtId eq '%s' and clusterExtId eq '%s'", container, e.cluster)
	byId, err := containers.ListStorageContainers(ptr(0), nil, &both, nil, nil)
	if err != nil {
		fail("ListStorageContainers $filter=%s: %v", both, err)
	}
	if found, ok := byId.GetData().([]clmconfig.StorageContainer); !ok || len(found) != 1 {
		fail("ListStorageContainers $filter=%s: %+v", both, byId.GetData())
	}
	strict(e, "/api/clustermgmt/v4.2/config/storage-containers?%24filter="+url.QueryEscape(both)+"&%24page=0", clmconfig.NewListStorageContainersApiResponse())
	got, err := containers.GetStorageContainerById(&container)
	if err != nil {
		fail("GetStorageContainerById: %v", err)
	}
	checkDecoded("GetStorageContainerById", got)
	if one, ok := got.GetData().(clmconfig.StorageContainer); !ok || *one.ContainerExtId != container {
		fail("GetStorageContainerById: %T %+v", got.GetData(), got.GetData())
	}
	strict(e, "/api/clustermgmt/v4.2/config/storage-containers/"+container, clmconfig.NewGetStorageContainerApiResponse())
	step("ListStorageContainers by clusterExtId and containerExtId: %s %s; GetStorageContainerById", *items[0].Name, container)
}

func readSubnets(e env) {
	c := netclient.NewApiClient()
	c.Host, c.Port, c.Username, c.Password = e.host, e.port, e.username, e.password
	c.VerifySSL, c.RetryInterval, c.LoggerFile = true, 200*time.Millisecond, os.Getenv("SDK_LOG_FILE")
	subnets := netapi.NewSubnetsApi(c)

	filter := fmt.Sprintf("name eq '%s'", mustEnv("SIM_SUBNET_NAME"))
	listed, err := subnets.ListSubnets(ptr(0), nil, &filter, nil, nil, nil)
	if err != nil {
		fail("ListSubnets $filter=%s: %v", filter, err)
	}
	checkDecoded("ListSubnets", listed)
	items, ok := listed.GetData().([]netconfig.Subnet)
	if !ok || len(items) != 1 || *items[0].ExtId != e.subnet || items[0].SubnetType == nil || *items[0].SubnetType != netconfig.SUBNETTYPE_VLAN || items[0].ClusterReference == nil || *items[0].ClusterReference != e.cluster {
		fail("ListSubnets $filter=%s: %T %+v", filter, listed.GetData(), listed.GetData())
	}
	if len(items[0].IpConfig) != 1 || items[0].IpConfig[0].Ipv4 == nil || items[0].IpConfig[0].Ipv4.IpSubnet == nil {
		fail("ListSubnets: the IPAM subnet has no ipConfig: %+v", items[0])
	}
	strict(e, "/api/networking/v4.2/config/subnets?%24filter="+url.QueryEscape(filter)+"&%24page=0", netconfig.NewListSubnetsApiResponse())

	// No match: the SDK must see no data (an empty array would decode as SubnetProjection and break PGC).
	none := "name eq 'no-such-subnet'"
	empty, err := subnets.ListSubnets(ptr(0), nil, &none, nil, nil, nil)
	if err != nil {
		fail("ListSubnets $filter=%s: %v", none, err)
	}
	if empty.GetData() != nil {
		fail("ListSubnets $filter=%s: data %T %+v, expected none", none, empty.GetData(), empty.GetData())
	}

	overlay := mustEnv("SIM_OVERLAY_SUBNET")
	got, err := subnets.GetSubnetById(&overlay)
	if err != nil {
		fail("GetSubnetById: %v", err)
	}
	checkDecoded("GetSubnetById", got)
	subnet, ok := got.GetData().(netconfig.Subnet)
	if !ok || subnet.SubnetType == nil || *subnet.SubnetType != netconfig.SUBNETTYPE_OVERLAY || subnet.VpcReference == nil || subnet.ClusterReference != nil {
		fail("GetSubnetById %s: %T %+v", overlay, got.GetData(), got.GetData())
	}
	strict(e, "/api/networking/v4.2/config/subnets/"+overlay, netconfig.NewGetSubnetApiResponse())
	step("ListSubnets by name: VLAN on the cluster with its IPAM range; none for an unknown name; GetSubnetById: OVERLAY in VPC %s", *subnet.VpcReference)
}

func readImages(e env, images *vmmapi.ImagesApi) {
	// As PGC pages: $page from 0 until metadata.totalAvailableResults images are collected.
	seen := map[string]bool{}
	var newest []vmmcontent.Image
	for page := 0; ; page++ {
		listed, err := images.ListImages(ptr(page), ptr(1), nil, ptr("createTime desc"), nil)
		if err != nil {
			fail("ListImages $page=%d: %v", page, err)
		}
		checkDecoded("ListImages", listed)
		items, ok := listed.GetData().([]vmmcontent.Image)
		if !ok || len(items) != 1 || items[0].Name == nil || items[0].CreateTime == nil || items[0].SizeBytes == nil {
			fail("ListImages $page=%d: %T %+v", page, listed.GetData(), listed.GetData())
		}
		if seen[*items[0].ExtId] {
			fail("ListImages $page=%d: image %s again", page, *items[0].ExtId)
		}
		seen[*items[0].ExtId] = true
		newest = append(newest, items[0])
		if listed.Metadata == nil || listed.Metadata.TotalAvailableResults == nil {
			fail("ListImages: no metadata.totalAvailableResults")
		}
		if len(newest) >= *listed.Metadata.TotalAvailableResults {
			break
		}
	}
	for i := 1; i < len(newest); i++ {
		if newest[i].CreateTime.After(*newest[i-1].CreateTime) {
			fail("ListImages $orderby=createTime desc: %s is newer than %s before it", *newest[i].Name, *newest[i-1].Name)
		}
	}
	strict(e, "/api/vmm/v4.2/content/images?%24orderby="+url.QueryEscape("createTime desc"), vmmcontent.NewListImagesApiResponse())

	got, err := images.GetImageById(&e.image)
	if err != nil {
		fail("GetImageById: %v", err)
	}
	checkDecoded("GetImageById", got)
	if image, ok := got.GetData().(vmmcontent.Image); !ok || *image.ExtId != e.image || image.Type == nil || *image.Type != vmmcontent.IMAGETYPE_DISK_IMAGE {
		fail("GetImageById: %T %+v", got.GetData(), got.GetData())
	}
	strict(e, "/api/vmm/v4.2/content/images/"+e.image, vmmcontent.NewGetImageApiResponse())
	step("ListImages paged one by one, newest first: %d images, newest %s; GetImageById", len(newest), *newest[0].Name)
}
