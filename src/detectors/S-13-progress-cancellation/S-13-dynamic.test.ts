import dynamic from './dynamic.js';
import { testDetectorFolder } from '../../../test/support/detector-tester.js';

testDetectorFolder('S-13', [dynamic], import.meta.url);
