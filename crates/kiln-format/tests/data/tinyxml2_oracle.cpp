// The original tool's WriteMaterialData, fed from stdin: prints what tinyxml2 saves.
// Build: g++ -O2 tinyxml2_oracle.cpp -ltinyxml2 -o tinyxml2_oracle   (Debian: libtinyxml2-dev)
// Input: one material per line: name diffuseFile specularFile normalFile as hex bytes ("-" for
// an empty string), then 16 hex f32 bit patterns (ambient, diffuse, specular, emissive RGBA).
#include <tinyxml2.h>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <sstream>
#include <string>

static std::string unhex(const std::string& h) {
    std::string s;
    if (h == "-") return s;
    for (size_t i = 0; i + 1 < h.size(); i += 2) s.push_back((char)std::stoi(h.substr(i, 2), nullptr, 16));
    return s;
}

int main() {
    tinyxml2::XMLDocument document;
    document.LinkEndChild(document.NewDeclaration());
    tinyxml2::XMLElement* root = document.NewElement("Materials");
    document.LinkEndChild(root);
    std::string line;
    while (std::getline(std::cin, line)) {
        if (line.empty()) continue;
        std::istringstream in(line);
        std::string text[4];
        for (auto& t : text) { std::string h; in >> h; t = unhex(h); }
        float c[16];
        for (float& f : c) { std::string h; in >> h; uint32_t b = (uint32_t)std::stoul(h, nullptr, 16); std::memcpy(&f, &b, 4); }
        tinyxml2::XMLElement* node = document.NewElement("Material");
        root->LinkEndChild(node);
        const char* tags[4] = {"Name", "DiffuseFile", "SpecularFile", "NormalFile"};
        for (int i = 0; i < 4; ++i) {
            tinyxml2::XMLElement* e = document.NewElement(tags[i]);
            e->SetText(text[i].c_str());
            node->LinkEndChild(e);
        }
        const char* colors[4] = {"Ambient", "Diffuse", "Specular", "Emissive"};
        for (int i = 0; i < 4; ++i) {
            tinyxml2::XMLElement* e = document.NewElement(colors[i]);
            e->SetAttribute("R", c[4 * i + 0]);
            e->SetAttribute("G", c[4 * i + 1]);
            e->SetAttribute("B", c[4 * i + 2]);
            e->SetAttribute("A", c[4 * i + 3]);
            node->LinkEndChild(e);
        }
    }
    document.SaveFile(stdout);
    return 0;
}
