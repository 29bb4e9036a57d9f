// Package sdkdecoding finds what Nutanix's v4 Go SDKs could not place in a decoded answer. The SDKs ignore
// json.Unmarshal errors and keep unknown fields and enum values aside, so a test program that calls them checks every
// decoded value with Check: fields in $unknownFields and enum values that decoded as $UNKNOWN are failures.
package sdkdecoding

import (
	"fmt"
	"reflect"
	"strings"
)

// undecoded lists what the SDK could not place in a decoded value: fields in $unknownFields and enum values
// that decoded as $UNKNOWN.
func undecoded(value reflect.Value, path string, problems *[]string) {
	if !value.IsValid() {
		return
	}
	if getName := value.MethodByName("GetName"); getName.IsValid() && value.Kind() == reflect.Int && getName.Type().NumIn() == 0 {
		if name := getName.Call(nil)[0].String(); name == "$UNKNOWN" {
			*problems = append(*problems, path+": enum value the SDK does not know")
		}
		return
	}
	switch value.Kind() {
	case reflect.Ptr, reflect.Interface:
		if !value.IsNil() {
			undecoded(value.Elem(), path, problems)
		}
	case reflect.Slice:
		for i := 0; i < value.Len(); i++ {
			undecoded(value.Index(i), fmt.Sprintf("%s[%d]", path, i), problems)
		}
	case reflect.Struct:
		if !value.CanAddr() {
			// A struct held in an interface (a one-of's value); GetValue() needs a pointer receiver.
			copied := reflect.New(value.Type()).Elem()
			copied.Set(value)
			value = copied
		}
		t := value.Type()
		for i := 0; i < value.NumField(); i++ {
			f := t.Field(i)
			if f.Name == "UnknownFields_" {
				if m, ok := value.Field(i).Interface().(map[string]interface{}); ok && len(m) > 0 {
					keys := make([]string, 0, len(m))
					for k := range m {
						keys = append(keys, k)
					}
					*problems = append(*problems, fmt.Sprintf("%s: fields the SDK does not know: %v", path, keys))
				}
				continue
			}
			if !f.IsExported() {
				// The one-of holders keep their value in unexported fields; GetValue() reaches it.
				continue
			}
			undecoded(value.Field(i), path+"."+f.Name, problems)
		}
		if getValue := value.Addr().MethodByName("GetValue"); getValue.IsValid() && getValue.Type().NumIn() == 0 {
			undecoded(getValue.Call(nil)[0], path+"<one-of>", problems)
		}
	}
}

// Problems lists what the SDK could not place in value (what names it in the list), empty when it decoded cleanly.
func Problems(what string, value interface{}) []string {
	var problems []string
	undecoded(reflect.ValueOf(value), what, &problems)
	return problems
}

// Check is Problems as one error, nil when value decoded cleanly.
func Check(what string, value interface{}) error {
	if problems := Problems(what, value); len(problems) > 0 {
		return fmt.Errorf("%s did not decode cleanly:\n  %s", what, strings.Join(problems, "\n  "))
	}
	return nil
}
